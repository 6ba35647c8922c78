"""A unit's numeric rule flags, compiled from its cards' skills, for the battle kernels.

:func:`unit_rules` turns a card (with a joined hero or a pilot, if any) into a
:class:`UnitRules` of small integers; :func:`pack_unit_rules` lays several out as one int64
array, one row per unit, columns in :data:`FIELDS` order (``R_<FIELD>`` indices), for a Numba
kernel that knows nothing of cards. Each flag's meaning and its rulebook lines (seed 003) are
in its field docstring below; whether the battles play it is the table of
:mod:`dustsim.rules.skills` (a flag here is only the card's fact, not a claim it is played).

Sharing (L3361): unless a skill says otherwise, a joined hero's skills apply to the unit and
the unit's to the hero. Camouflage (L3457) and First Strike (L3525) are not shared: a combined
unit is camouflaged only when both the squad and the hero are (a camouflaged squad joined by a
hero who is not can be seen through him: our reading, the text is silent), and First Strike
counts for the squad's own close-combat attacks (``first_strike``) and the hero's
(``hero_first_strike``) separately. Ace Pilot is not shared with a unit its hero joins (L3369)
but it is the point of piloting: it counts for the piloted vehicle. A pilot's other skills are
kept (L944) but the engines do not play pilots' skills (see the table).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import astuple, dataclass, fields
from functools import lru_cache

import numpy as np

from dustsim.data.cards import COLUMNS, Card, Weapon, parse_cell
from dustsim.rules.skills import skill_base

#: movement classes (codes = index), the board's ``move_cost`` columns (issue 22 contract:
#: ``FOOT, TRACKED, WHEELED, HALF_TRACKED, WALKER, JUMP, FLYING``)
MOVEMENT = ("foot", "tracked", "wheeled", "half-tracked", "walker", "jump", "flying")


@dataclass(frozen=True)
class UnitRules:
    """Numeric rule flags of one unit (0 = absent). Faces are counted out of 6 (P, T, S two
    faces each): 2 = one symbol (1/3), 4 = two symbols (2/3)."""

    actions: int = 2
    """Most actions in one activation: 2 (L343-356), 3 when a skill may grant a third
    (Infantry Ace L3555-3557 for the hero and the unit it joined, Ace Pilot L3367-3369 for the
    piloted vehicle, Ace Air Pilot L3363-3365 for the piloted aircraft); never more than 3
    (L356)."""
    third_action_faces: int = 0
    """Faces of one die, rolled when the unit activates, that grant the third action: 4 (a
    2/3 roll: "P or T", L3557, L3369, L3365); 0 without such a skill."""
    scout: int = 0
    """1: the first action of the game may be a March Move counting as one action
    (L3639-3641); shared with a joined hero/unit."""
    charge: int = 0
    """1: a free close-combat Attack right after a March Move (L3459-3461); shared."""
    first_strike: int = 0
    """1: the squad's (or a lone unit's) close-combat attacks resolve and remove casualties
    before the enemy's; retaliation included; ignored when both sides have it; not shared
    (L3523-3525)."""
    hero_first_strike: int = 0
    """1: the joined hero's own close-combat attacks have First Strike (L3525, not shared;
    grid battles: the hero's lines resolve first, ``play.battle_rules.hero_first``)."""
    move_and_fire: int = 0
    """1: a free Move right before or after a ranged Sustained Attack, or a free ranged Attack
    right before or after a March Move (L3603-3605); shared."""
    at_the_double: int = 0
    """1: a free Move right after a March Move (L3431-3433); shared."""
    camouflage: int = 0
    """0 none, 1 Camouflage, 2 Improved Camouflage (ENLIST; same lines): after a Camouflage
    special action, and at the start of the game, the unit cannot be attacked from range 3
    or more; it ends when the unit takes an action other than Move or Nothing (L3453-3457);
    not shared (see the module docstring)."""
    smoke_launchers: int = 0
    """Free smoke screens on itself per game (a free Launch Smoke special action, L3651-3653;
    smoke: L3226-3230): 1 with Smoke Launchers."""
    smoke_grenades: int = 0
    """1: Smoke Grenades (ENLIST: a smoke screen; smoke L3226-3230). Its own text is in no
    seed; decision: played as Smoke Launchers (L3651-3653), one free screen per game on the
    unit itself (:mod:`dustsim.play.battle_rules`); shared with a joined hero."""
    reactive_range: int = 4
    """Range at which the unit may react to a triggering combination: 4 (L797), 6 with
    Advanced Reactive Fire (L3371-3373, shared); 0 for aircraft, which never react (L813)."""
    reactive_faces: int = 2
    """Faces that count as successes on the reactive dice: 2 (L805-809), 4 with Advanced
    Reactive Fire ("as well as", L3373)."""
    airborne: int = 0
    """1: placed on turn 1 anywhere not within range 2 of an objective; first action Nothing,
    the second on a 2/3 roll; cannot capture or contest that turn (L3391-3393)."""
    air_assault: int = 0
    """1: a carried vehicle takes damage on one face (not two) when its airlifter is destroyed
    (L3379-3381, L536)."""
    initiative_dice: int = 3
    """Initiative dice its side rolls while it is in the force: 3 (L337), 4 with a Black Ops
    hero (L3441-3443)."""
    removal_dice: int = 2
    """Dice for the Under Fire / Suppression removal roll: 2 (L741), 3 with Brave
    (L3449-3451) or a joined Commissar (L3477-3479)."""
    token_immune: int = 0
    """1: never Under Fire nor Suppressed: Superhuman (L3675), a joined Nothin' Easy hero
    (L3611-3613), a Mythos Creature (BattleScribe ``Dust_1947.gst`` rule
    5ecc-bf37-dcad-4e11)."""
    cheat_death: int = 0
    """1: the (joined) hero survives elimination on a 2/3 roll with one damage removed and a
    Stunned token (L3463-3467)."""
    must_move_first: int = 0
    """1: an aircraft that must Move or March Move as its first action (L516); a Helicopter
    need not (L3551-3553)."""
    movement: int = 0
    """Movement class, an index of :data:`MOVEMENT`: foot (infantry), tracked (L3689-3691),
    wheeled (L3697-3699), half-tracked (L3547-3549), walker (other vehicles), jump (Jump,
    Rocket Pack), flying (Flying L3527-3529, aircraft L516)."""
    trail_blazer: int = 0
    """1: moves through enemy units (L3693-3695; the seed's text, not the terrain)."""
    squares: int = 1
    """Squares it occupies: 1, 2 for large vehicles and aircraft, 4 for huge vehicles (L285,
    L504-512); a large vehicle is in cover if one square is, a huge one if two are (L727).
    Grid battles play it for vehicles (:func:`dustsim.play.battle.footprint`; decisions in
    :data:`dustsim.play.battle.FOOTPRINT`); an aircraft stays on one square there."""
    passengers: int = 0
    """Passenger spaces (Passengers (#), L3619-3621, L522-530; infantry of armour 1-2 take one
    space per soldier, 3-4 two); 0 when unknown or none."""
    officer: int = 0
    """1: can take the officer's command actions (Ammo Drop, Get Moving, Rally; L3711-3731):
    Officer skill, Command Squad (L3469-3471), Command Vehicle (L3473-3475), General."""
    general: int = 0
    """1: a free officer action every activation (L3535-3537)."""
    command_vehicle: int = 0
    """1: failed command-squad special actions are re-rolled (L3473-3475)."""
    medic: int = 0
    """1: medic command actions (Get Up, Inject Stimulants; L3735-3757): Medic, Combat Medic
    (its own text is in no seed: read as a unit with a Medic)."""
    mechanic: int = 0
    """1: Makeshift Repair (L3587-3589, L3759-3765)."""
    artillery_observer: int = 0
    """1: fires an unactivated friendly artillery unit's weapons through its own line of sight
    (L3419-3425)."""
    fighting_spirit: int = 0
    """Uses per game of Fighting Spirit (hits on P,T for one Attack or Sustained Attack,
    L3519-3521): 1, used by hero and unit at once (L3361)."""
    lucky: int = 0
    """Uses per game of Lucky (the hero re-rolls failed hit dice of its own weapons, declared
    after the roll; not shared, L3583-3585): 1."""
    assassin: int = 0
    """1: the hero chooses which miniatures its close-combat hits remove (L3427-3429)."""
    amphibious: int = 0
    """1: Amphibious (L3411-3413): moves through water."""
    air_traffic_control: int = 0
    """1: a special action, one die on P: an already activated friendly aircraft activates
    again (L3387-3389)."""
    radio: int = 0
    """1: its officer has a radio: command actions reach any unit in play, not only those in
    range 2 and line of sight (L3713-3715): a Command Squad, a vehicle, an officer of
    infantry armour 3-4, or an officer piloting a vehicle."""
    dozer_blade: int = 0
    """1: Dozer Blade (L3503-3505): the Dozer special action digs the vehicle in: in cover
    from any angle until it takes a Move or March Move (grid battles:
    :mod:`dustsim.play.battle_carry`); its engineering actions (L3355-3357) need a bunker,
    strongpoint, trench or minefield next to it."""
    raid: int = 0
    """1: Raid (BattleScribe ``Dust_1947.gst`` rule b24c-9323-2628-3003): the vehicle may
    spend all its actions on a Raid special action, Move + Attack + Move, and then cannot be
    reactivated that turn; not shared (a vehicle's rule)."""
    quick_recovery: int = 0
    """1: Quick Recovery (BattleScribe ``Dust_1947.gst`` rule 4a1d-986b-27ce-95ef, Operation
    Kondor p. 112): no Nothing action after an Airborne drop; shared with a squad it joins,
    not with a vehicle."""
    no_orders: int = 0
    """1: Lesser Mythos Creatures (BattleScribe ``Dust_1947.gst`` rule 049d-d288-a828-4c96):
    never the target of a Command Squad's, an Officer's or a Medic's special action."""
    march_cover: int = 0
    """1: a vehicle piloted by a hero with Crazy Jimmy (BattleScribe ``Allies.cat`` rule
    223b-ebcf-b2ba-a969): after its March Move it has a cover save until its next
    activation."""
    spy: int = 0
    """1: a Spy hero (L3655-3657): not placed at the start; when it activates off the table it
    rolls two dice, is placed within range 1 of an enemy unit on any P and takes one action
    per P, else only Nothing or Pass."""
    desert_fox: int = 0
    """1: a unit it reactivates with Get Moving You Bunch of Monkeys gains At the Double for
    that activation (L3499-3501)."""
    jammer: int = 0
    """1: enemy units using a radio within range 6 re-roll their successful dice for those
    actions; attacks triggered by an Artillery Observer re-roll their successes
    (L3565-3567)."""
    red_banner: int = 0
    """1: three dice, not two, for each unit it Rallies (L3627-3629)."""
    medevac: int = 0
    """1: a Medevac vehicle: a special action returns eliminated soldiers of an infantry unit
    within range 1, one die per soldier, each P one back (L3591-3593)."""
    zombie: int = 0
    """1: a Zombie unit (or one a Zombie hero joined): no Officer, Medic or Mechanic special
    action may target it (L3703)."""
    air_alert: int = 0
    """1: a vehicle's Air Alert special action: one die on P and, for the rest of the turn,
    friendly vehicles attacking that enemy aircraft hit on P and T (L3375-3377)."""
    mindless: int = 0
    """1: a Mindless Zombie unit: it may contest objectives but never take or hold them
    (L3599-3601)."""
    blutkreuz: int = 0
    """1: carries a Blutkreuz: Mindless Zombie units within range 1 at the start of their
    activation move 3, march 4 and gain Charge; not shared with a unit its hero joins
    (L3445-3447)."""
    resurrection: int = 0
    """1: the Resurrection special action: a Mindless Zombie unit within range 1 rolls one
    die per eliminated soldier, each P returns one (L3631-3633)."""
    follow_me: int = 0
    """1: the Follow Me special action, once per turn: each friendly infantry unit of armour
    1-2 within range 2 and sight rolls a die and on P makes an immediate Move of 2
    (L3531-3533)."""
    naval_unit: int = 0
    """1: Naval Unit: a free Attack action right after a March Move (L3607-3609)."""
    interrogate: int = 0
    """1: Interrogate (shared with a joined unit): once the unit eliminates a hero or an
    officer with a close-combat weapon or an Execute, its side rolls four initiative dice for
    the rest of the game (L3561-3563)."""
    execute: int = 0
    """1: Execute: a special action eliminating a soldier (a hero included) of a unit with a
    Stunned token within range 1 (L3511-3513); shared."""
    assault_vehicle: int = 0
    """1: Assault Vehicle: its passengers may activate (and dismount) after the vehicle has
    activated (BattleScribe Dust_1947.gst rule c697-cca3-4af2-fbc5, Operation Kondor
    p. 112)."""
    officer_soldier: int = 0
    """1: one of the squad's soldiers is an officer (its card has Command Squad, Officer...):
    when he is eliminated the squad loses the command actions he gave it (L3709), unless its
    joined hero is an officer too (``hero_officer``). The owner removes him last (RULES.md
    §3: plain soldiers before specialists); a Sniper may name him (L3317; decision: the
    officer is not the Unit Leader, whom L3317 protects: the cards do not say which miniature
    leads, L2254)."""
    hero_officer: int = 0
    """1: the joined hero is an officer himself (Officer, General...): the unit's command
    actions stand while he does (or its officer soldier). With General, joined to a squad
    with an officer soldier (``officer_soldier``), its one-die officer actions roll two dice
    (L3537: a success if either succeeds, the digest's OPEN-20 reading)."""
    spotter: int = 0
    """1: Spotter (L3321-3323): the squad's sniper weapons hit on P and T in a Sustained Attack
    in which its spotter (the carrier of its other ranged weapons) does not fire."""


FIELDS: tuple[str, ...] = tuple(f.name for f in fields(UnitRules))
N_FIELDS = len(FIELDS)
#: column indices of :func:`pack_unit_rules` (checked against FIELDS below)
(R_ACTIONS, R_THIRD_ACTION_FACES, R_SCOUT, R_CHARGE, R_FIRST_STRIKE, R_HERO_FIRST_STRIKE,
 R_MOVE_AND_FIRE, R_AT_THE_DOUBLE, R_CAMOUFLAGE, R_SMOKE_LAUNCHERS, R_SMOKE_GRENADES,
 R_REACTIVE_RANGE, R_REACTIVE_FACES, R_AIRBORNE, R_AIR_ASSAULT, R_INITIATIVE_DICE,
 R_REMOVAL_DICE, R_TOKEN_IMMUNE, R_CHEAT_DEATH, R_MUST_MOVE_FIRST, R_MOVEMENT, R_TRAIL_BLAZER,
 R_SQUARES, R_PASSENGERS, R_OFFICER, R_GENERAL, R_COMMAND_VEHICLE, R_MEDIC, R_MECHANIC,
 R_ARTILLERY_OBSERVER, R_FIGHTING_SPIRIT, R_LUCKY, R_ASSASSIN, R_AMPHIBIOUS, R_AIR_TRAFFIC_CONTROL,
 R_RADIO, R_DOZER_BLADE, R_RAID, R_QUICK_RECOVERY, R_NO_ORDERS, R_MARCH_COVER, R_SPY,
 R_DESERT_FOX, R_JAMMER, R_RED_BANNER, R_MEDEVAC, R_ZOMBIE, R_AIR_ALERT, R_MINDLESS,
 R_BLUTKREUZ, R_RESURRECTION, R_FOLLOW_ME, R_NAVAL_UNIT, R_INTERROGATE, R_EXECUTE,
 R_ASSAULT_VEHICLE, R_OFFICER_SOLDIER, R_HERO_OFFICER, R_SPOTTER) = range(59)
if FIELDS[R_SPOTTER] != "spotter" or len(FIELDS) != R_SPOTTER + 1:
    raise AssertionError("R_* indices out of step with UnitRules' fields")

_PASSENGERS = re.compile(r"passengers\s*\((\d+)\)", re.IGNORECASE)


def _bases(card: Card | None) -> set[str]:
    return {skill_base(s) for s in card.skills} if card is not None else set()


def unit_rules(card: Card, hero: Card | None = None, pilot: Card | None = None) -> UnitRules:
    """The flags of ``card``, joined by ``hero`` or piloted by ``pilot`` (see the module
    docstring for what is shared)."""
    own = _bases(card)
    h = _bases(hero)
    pil = _bases(pilot)
    shared = own | h  # L3361: skills of a joined hero apply to the unit and vice versa
    third = bool("infantry ace" in shared or ("ace pilot" in pil and card.kind == "vehicle")
                 or ("ace air pilot" in pil and card.kind == "aircraft"))
    arf = "advanced reactive fire" in shared
    aircraft = card.kind == "aircraft"
    if aircraft or {"flying"} & own:
        movement = MOVEMENT.index("flying")
    elif {"jump", "rocket pack"} & shared:
        movement = MOVEMENT.index("jump")
    elif "tracked" in own:
        movement = MOVEMENT.index("tracked")
    elif "wheeled" in own:
        movement = MOVEMENT.index("wheeled")
    elif "half tracked" in own:
        movement = MOVEMENT.index("half-tracked")
    elif card.kind == "vehicle":
        movement = MOVEMENT.index("walker")
    else:
        movement = MOVEMENT.index("foot")
    size = card.size
    if own & {"huge", "huge vehicle"}:
        size = "huge"
    elif own & {"large", "large vehicle"}:
        size = "large"
    squares = {"huge": 4, "large": 2}.get(size, 2 if aircraft else 1)
    cam = (2 if "improved camouflage" in own else 1 if "camouflage" in own else 0)
    if hero is not None:
        hcam = (2 if "improved camouflage" in h else 1 if "camouflage" in h else 0)
        cam = min(cam, hcam)
    passengers = 0
    for s in card.skills:
        m = _PASSENGERS.search(s)
        if m:
            passengers = int(m.group(1))
    officer_like = {"officer", "command squad", "command vehicle", "general",
                    "nco command squad", "cultist command squad"}
    return UnitRules(
        actions=3 if third else 2,
        third_action_faces=4 if third else 0,
        scout=int("scout" in shared),
        charge=int("charge" in shared),
        first_strike=int("first strike" in own),
        hero_first_strike=int("first strike" in h),
        move_and_fire=int("move and fire" in shared),
        at_the_double=int("at the double" in shared),
        camouflage=cam,
        smoke_launchers=int("smoke launchers" in own),
        smoke_grenades=int("smoke grenades" in shared),
        reactive_range=0 if aircraft else (6 if arf else 4),
        reactive_faces=4 if arf else 2,
        airborne=int("airborne" in shared),
        air_assault=int("air assault" in own),
        initiative_dice=4 if "black ops" in shared | pil else 3,
        removal_dice=3 if shared & {"brave", "commissar"} else 2,
        token_immune=int(bool(own & {"superhuman", "superhumans", "mythos creature"})
                         or "nothin' easy" in h
                         or ("nothin' easy" in own and card.kind == "squad")),
        cheat_death=int("cheat death" in (h if hero is not None else own)
                        and (hero is not None or card.kind == "hero")),
        must_move_first=int(aircraft and "helicopter" not in own),
        movement=movement,
        trail_blazer=int("trail blazer" in shared),
        squares=squares,
        passengers=passengers,
        officer=int(bool(shared & officer_like)),
        general=int("general" in shared),
        command_vehicle=int("command vehicle" in own),
        medic=int(bool(shared & {"medic", "combat medic"})),
        mechanic=int(bool(shared & {"mechanic", "mechanic crew",
                                    "mechanic + engineer vehicle"})),
        artillery_observer=int("artillery observer" in shared),
        fighting_spirit=int("fighting spirit" in shared),
        lucky=int("lucky" in h or ("lucky" in own and card.kind == "hero")),
        assassin=int("assassin" in h or ("assassin" in own and card.kind == "hero")),
        amphibious=int("amphibious" in own),
        air_traffic_control=int("air traffic control" in shared),
        radio=int(bool(shared & officer_like) and (
            card.kind == "vehicle" or bool(shared & {"command squad", "command vehicle"})
            or card.armour in ("I3", "I4") or pilot is not None)),
        dozer_blade=int("dozer blade" in own and card.kind == "vehicle"),
        raid=int("raid" in own and card.kind == "vehicle"),
        quick_recovery=int("quick recovery" in shared and card.kind != "vehicle"),
        no_orders=int("lesser mythos creatures" in own),
        march_cover=int("crazy jimmy" in pil and card.kind == "vehicle"),
        spy=int("spy" in own and card.kind == "hero"),
        desert_fox=int("desert fox" in shared),
        jammer=int("jammer" in shared),
        red_banner=int("red banner" in shared),
        medevac=int("medevac" in own and card.kind in ("vehicle", "aircraft")),
        zombie=int("zombie" in shared),
        air_alert=int("air alert" in own and card.kind == "vehicle"),
        mindless=int("mindless" in own),
        blutkreuz=int("blutkreuz" in shared),
        resurrection=int("resurrection" in shared),
        follow_me=int("follow me" in shared),
        naval_unit=int("naval unit" in own),
        interrogate=int("interrogate" in shared),
        execute=int("execute" in shared),
        assault_vehicle=int("assault vehicle" in own and card.kind in ("vehicle", "aircraft")),
        officer_soldier=int(card.kind == "squad" and bool(own & officer_like)),
        hero_officer=int(hero is not None and bool(h & officer_like)),
        spotter=int("spotter" in own and card.kind == "squad"),
    )


def pack_unit_rules(rules: Sequence[UnitRules]) -> np.ndarray:
    """``int64[len(rules), N_FIELDS]``: one row per unit, columns in :data:`FIELDS` order
    (``R_<FIELD>`` are the column indices)."""
    out = np.zeros((len(rules), N_FIELDS), np.int64)
    for i, r in enumerate(rules):
        out[i] = astuple(r)
    return out


#: the improvised close-combat weapon's name, as the event log names it (L767-773)
IMPROVISED = "Improvised weapon"
IMPROVISED_LINES = "003:L767-787"


@lru_cache(maxsize=64)
def _improvised(count: int) -> Weapon:
    """The improvised weapon line carried by ``count`` soldiers: range C, 1/1 in all 14 armour
    columns (the table of L769-773). One object per count (the duel compiler memoises on it)."""
    cell = parse_cell("1/1")
    return Weapon(name=IMPROVISED, line=(cell,) * len(COLUMNS), count=count, range="C",
                  source=IMPROVISED_LINES)


def improvised_weapons(card: Card, hero: Card | None = None
                       ) -> tuple[tuple[Weapon, Card, bool], ...]:
    """The improvised close-combat weapon lines (Dust 1947 L767-773) a unit fights with:
    ``(weapon, carrier card, carried by the joined hero)``, added to the unit's weapon lines
    where an army is compiled (:func:`dustsim.play.duel.compile_duel`, grid battles through it),
    so the kernels, retaliation, the policies and the event log play them as any close-combat
    line.

    Every infantry and vehicle unit may attack in close combat with an improvised weapon rated
    1/1 in every armour column (L767-773); aircraft are not infantry or vehicle units (none).
    The seeds leave open (digest OPEN-21) whether it is one die per soldier or per unit and
    whether it adds to a listed close-combat weapon. **Decision** (from the worked example,
    L775-787: each unit "rolls for all of its soldiers", one die each, and B's three survivors
    roll three): one die per soldier -- a squad's line is carried by each of its soldiers
    (the kernels fire it with the soldiers left), a joined hero carries one, a vehicle, a lone
    hero or a support weapon one (one model: the engines count a support weapon's line as
    one carrier while it stands, L3679-3681) -- and only for a unit (the squad with its
    joined hero) with no fielded close-combat (range C) weapon on its cards: a listed
    close-combat weapon replaces it (L767: "regardless of the weapons listed" reads as
    "even a unit without one"). Hits on the standard faces as any weapon (a 1/1 cell); close
    combat has no cover or infantry save (L765)."""
    if card.kind == "aircraft":
        return ()
    cards = [card] + ([hero] if hero is not None else [])
    if any(w.close_combat for c in cards for w in c.weapons if not w.optional and w.count):
        return ()
    own = card.models if card.kind == "squad" else 1
    out: list[tuple[Weapon, Card, bool]] = []
    if own:
        out.append((_improvised(int(own)), card, False))
    if hero is not None:
        out.append((_improvised(1), hero, True))
    return tuple(out)
