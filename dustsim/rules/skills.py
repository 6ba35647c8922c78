"""Unit skills and weapon rules: the one table of every rule on the bundled cards and how the
battles (duels and list battles) treat it.

A card's skill is checked by its base name (lower case; a parameter such as ``Passengers
(12)``, ``Pilot: Sigrid`` or ``Expert - Flamethrower`` dropped). A skill the attack compiler
models (:data:`MODELLED`) changes the numbers of an attack; a skill in :data:`KNOWN_UNMODELLED`
is a real skill the attack compiler does not model; anything else is refused, so a typo
("Damage Resiliant") cannot silently switch a rule off.

:data:`SKILL_RULES` and :data:`WEAPON_RULES` are the one table (issue 23): per rule its kind,
its status in battles (:data:`STATUSES`: ``played``, ``attack only`` -- ``dustsim attack``
plays it, battles drop it --, ``not played``, ``no effect on play``), the reason and the
rulebook lines. :func:`unplayed_rules` gives a battle's notes and ``validate --warnings``
from it, ``dustsim skills`` prints it, the value model reads :func:`played_skill_names`.
When an engine starts playing a rule, flip its status here (one line) and nothing else.

To add a skill: put its base name in the data layer's vocabulary
(:data:`dustsim.data.skill_names.SKILLS`, with where it comes from) and its row in
:data:`SKILL_RULES`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from dustsim.data.skill_names import SKILL_ALIASES, SKILLS, skill_base, suggest  # noqa: F401
from dustsim.rules.attack import ATTACKER_SKILLS, TARGET_SKILLS

if TYPE_CHECKING:
    from dustsim.data.cards import Card

#: skills that change the engines' numbers (see dustsim.rules.attack)
MODELLED: frozenset[str] = frozenset(ATTACKER_SKILLS | TARGET_SKILLS)

#: base name -> source. Real skills the attack compiler does not model (movement, transport,
#: command, campaign and special actions, vehicle types): the vocabulary's other rows.
KNOWN_UNMODELLED: dict[str, str] = {k: v for k, v in SKILLS.items() if k not in MODELLED}


def classify(skill: str) -> str:
    """``modelled``, ``unmodelled`` (known, not modelled) or ``unknown``."""
    b = skill_base(skill)
    if b in MODELLED:
        return "modelled"
    if b in KNOWN_UNMODELLED:
        return "unmodelled"
    return "unknown"


# -- the table ---------------------------------------------------------------------------------
#: statuses in battles (duels and list battles); ``attack only``: ``dustsim attack`` plays it
#: for one attack, the battles drop it
STATUSES = ("played", "attack only", "not played", "no effect on play")
KINDS = ("skill", "weapon rule", "keyword")
#: statuses a battle's notes name (the rule changes play and the battles do not play it)
UNPLAYED = frozenset({"attack only", "not played"})
#: the engines whose notes :func:`unplayed_rules` gives: duels on a line (the engagement
#: kernel, :mod:`dustsim.play.duel`) and battles on a scenario's board (:mod:`dustsim.play.battle`)
ENGINES = ("line", "board")


@dataclass(frozen=True)
class Rule:
    """One skill, weapon rule or unit keyword of the bundled cards and how battles treat it.

    ``lines``: rulebook lines (seed 003 unless prefixed ``000:``/``001:``/``004:``), or for a
    rule whose text is in no seed the BattleScribe catalogue's rule (``BSD:<file> rule <id>``,
    with book and page where the catalogue gives them; the catalogues in
    ``../shared/data/bsdata-dust1947``); empty where neither has its text. ``gap``: for a
    ``played`` rule, the part of it the battles still leave out (named in their notes):
    the table's word (``dustsim skills``, the value model). ``line_gap`` / ``board_gap``:
    what duels on a line (:mod:`dustsim.play.duel`) / grid battles (:mod:`dustsim.play.battle`)
    leave out where it differs from ``gap`` (None: ``gap``; "": nothing), each engine's notes;
    :data:`ENGINE_GAPS` sets them."""

    name: str
    kind: str
    status: str
    reason: str
    lines: str = ""
    gap: str = ""
    line_gap: str | None = None
    board_gap: str | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES or self.kind not in KINDS:
            raise ValueError(f"rule {self.name!r}: bad status {self.status!r} or kind "
                             f"{self.kind!r}")

    @property
    def changes_play(self) -> bool:
        return self.status != "no effect on play"

    @property
    def unplayed(self) -> bool:
        """Changes play and the battles do not play it (``attack only`` or ``not played``)."""
        return self.status in UNPLAYED

    def gap_in(self, engine: str | None) -> str:
        """The part of the rule ``engine`` leaves out (:data:`ENGINES`; None: ``gap``,
        what either leaves out)."""
        if engine is None:
            return self.gap
        if engine not in ENGINES:
            raise ValueError(f"engine {engine!r} is not one of {', '.join(ENGINES)}")
        own = self.line_gap if engine == "line" else self.board_gap
        return self.gap if own is None else own


#: rules with no text anywhere the project may read (issue 23)
_NO_TEXT = ("no rule text in the seeds or the BattleScribe catalogues (../shared/data/"
            "bsdata-dust1947)")
_BSD = "BSD:Dust_1947.gst rule "  # the BattleScribe catalogue's rule id (lines: its citation)
_BOARD = "needs the battlefield (squares, terrain, line of sight)"


# Large and Huge vehicles: played on the grid (play.battle_kernel; decisions with their lines in
# play.battle.FOOTPRINT)
_LARGE = ("occupies two squares (front and rear), in cover if one is; moves by its front "
          "square, the rear taking the square it left; front and turret lines from its front "
          "square, rear lines from its rear; sees over Quonset huts (grid battles: "
          "play.battle.FOOTPRINT)")
_HUGE = ("occupies a 2 x 2 block, in cover if two of its squares are; the block moves as "
         "one and turns within itself; lines from its two squares facing the target; sees "
         "over Quonset huts (grid battles: play.battle.FOOTPRINT)")
_LARGE_LINES = "L285, L504-512, L604, L727, L3156-3158"
_TALL_GAP = "duels on a line (no squares there)"


def _r(name, kind, status, reason, lines="", gap=""):
    return Rule(name, kind, status, reason, lines, gap)


P, A, N, X = STATUSES
S, W, K = KINDS
#: card skill base name (see :func:`skill_base`) -> rule
SKILL_RULES: dict[str, Rule] = {r.name.lower(): r for r in (
    # -- played: the attack compiler or the engagement kernel applies them in battles
    _r("Damage Resilient", S, P, "one die per damage point cancels on P (attack compiler)",
       "L3481-3493"),
    _r("Defensive Tactics", S, P, "Damage Resilient while in cover (attack compiler)",
       "L3495-3497"),
    _r("Steel Guard", S, P, "2-face infantry save, no cover save, Damage Resilient",
       "L3659-3661"),
    _r("Zombie", S, P, "2-face infantry save, no cover save", "L3701-3703"),
    _r("Superhuman", S, P, "2-face saves; never Under Fire or Suppressed", "L3667-3675"),
    _r("Superhumans", S, P, "2-face saves; never Under Fire or Suppressed", "L3667-3675"),
    _r("Cheat Death", S, P, "the 2/3 survival roll when the hero is eliminated, then a "
       "Stunned token (engagement kernel)", "L3463-3467"),
    _r("Killing Spree", S, P, "ranged hits chain on P (attack compiler)", "L3569-3575"),
    _r("Berserk", S, P, "close-combat hits chain on P (attack compiler)", "L3435-3439"),
    _r("Frenzy", S, P, "chain dice against soldiers (tactics-2013)", "004:L396-400"),
    _r("And Stay Down", S, P, "ranged hits give a Suppression token", "L3415-3417"),
    _r("Power Scope", S, P, "hits on P,T in a Sustained Attack", "L3300-3302"),
    _r("Spotter", S, P, "sniper weapons hit on P,T in a Sustained Attack in which the spotter "
       "does not fire (grid battles: the policy spotter-weighs, play.battle_rules.spot)",
       "L3321-3323", gap="duels on a line (the spotter fires too there)"),
    _r("Brave", S, P, "three dice for the token removal roll (engagement kernel)",
       "L3449-3451, L741"),
    _r("Commissar", S, P, "the joined unit rolls three removal dice", "L3477-3479",
       gap="the must-join and one-per-unit limits are list rules"),
    _r("Nothin' Easy", S, P, "the joined unit never takes Under Fire / Suppression",
       "L3611-3613"),
    _r("Helicopter", S, P, "hovers: need not Move first (engagement kernel)", "L3551-3553"),
    _r("Support Weapon", S, P, "damage track, one crew per point, blast dice per crew",
       "L3679-3681", gap="only soldiers 3-4 may fire other weapons with the support weapon"),
    _r("Small", K, P, "small vehicle: always in cover, no improved save", "L3647-3649"),
    _r("Small Vehicle", K, P, "always in cover, no improved save", "L3647-3649"),
    _r("Small Vehicles", K, P, "always in cover, no improved save", "L3647-3649"),
    # -- played by `dustsim attack` for one attack, dropped by the battles
    _r("Expert", S, P, "hits on P,T with the named weapon (rules.attack.weapon_skills)",
       "L3515-3517", gap="a bare 'Expert' that names no weapon (nothing is guessed)"),
    _r("Fighting Spirit", S, P, "once per game, hits on P,T: spent in the unit's first Attack "
       "action (engagement and grid battle kernels)", "L3519-3521"),
    _r("Lucky", S, P, "once per game, the hero re-rolls its failed hit dice: used in its "
       "first plain Attack (engagement and grid battle kernels; the policy does not wait for "
       "a bad roll)",
       "L3583-3585"),
    _r("Take Aim", S, P, "the hero's ranged weapons hit on P,T in a Sustained Attack "
       "(rules.attack.weapon_skills)", "L3683-3687"),
    _r("Assassin", S, P, "a lone Assassin hero sends its close-combat hits to a joined hero "
       "(engagement and grid battle kernels); joined to a squad, his own close-combat lines "
       "do (grid battles: play.battle_rules.assassin_aim)", "L3427-3429",
       gap="an Assassin joined to a squad in duels on a line"),
    _r("Air Alert", S, P, "special action, a die on P: friendly vehicles hit that aircraft on "
       "P,T this turn (grid battles: play.battle_rules)", "L3375-3377",
       gap="duels on a line (no special actions there)"),
    _r("Savage Animal", S, P, "hits on P,T with the named weapon "
       "(rules.attack.weapon_skills)", "L3635-3637",
       gap="a bare 'Savage Animal' that names no weapon"),
    _r("Medal of Honor", S, A, "tactics-2013 first-weapon bonus; battles drop it", ""),
    _r("Sniper", S, A, "2009 skill: the attacker picks the miniatures hit (--aim)",
       "001:L738-742"),
    # -- not played: actions, tempo, concealment, command, carrying, terrain
    _r("Infantry Ace", S, P, "2/3 roll at activation for a third action (engagement "
       "kernel, rules.unit_rules)", "L3555-3557"),
    _r("Ace Pilot", S, P, "2/3 roll for a third action of the piloted vehicle (engagement "
       "kernel, rules.unit_rules)", "L3367-3369",
       gap="the piloting hero's other skills and its bail-out roll (L944-946)"),
    _r("Ace Air Pilot", S, P, "2/3 roll for a third action of the piloted aircraft "
       "(engagement kernel, rules.unit_rules)", "L3363-3365",
       gap="the piloting hero's other skills and its bail-out roll (L944-946)"),
    _r("Air Pilot", S, N, "may pilot aircraft; pilots' skills are not played", "L3383-3385"),
    _r("Pilot", S, P, "who may pilot a vehicle: a list joins the pilot to it (a combined "
       "unit; the pilot is never targeted, L944)", "L3623-3625, L936-948",
       gap="the pilot's bail-out roll when the vehicle is destroyed and its own skills "
           "(L944-946)"),
    _r("Defensive Pilot", S, N, _NO_TEXT),
    _r("Advanced Reactive Fire", S, P, "reaction range 6 and reactive dice on P or S "
       "(engagement kernel; grid battles: play.battle_rules)", "L3371-3373"),
    _r("Scout", S, P, "the first March Move of the game costs one action, then an Attack "
       "or a Move (engagement kernel; grid battles: play.battle_rules)", "L3639-3641"),
    _r("Charge", S, P, "March Move into contact, then a free close-combat Attack (policy "
       "charge=when-able; grid battles: play.battle_rules)", "L3459-3461"),
    _r("First Strike", S, P, "close combat resolved and casualties removed before the "
       "enemy's (engagement kernel; grid battles: play.battle_rules, a joined hero's own "
       "lines first, not shared with the squad)", "L3523-3525",
       gap="a joined hero's own First Strike in duels on a line"),
    _r("Move and Fire", S, P, "Move + ranged Sustained Attack, or March Move + ranged Attack "
       "(engagement kernel; grid battles: play.battle_rules)", "L3603-3605"),
    _r("At the Double", S, P, "a free Move after a March Move (engagement kernel; grid "
       "battles: play.battle_rules)", "L3431-3433"),
    _r("Airborne", S, P, "off the table until its first activation, then placed at its "
       "approach range (engagement kernel) or, in grid battles, dropped on turn 1 anywhere "
       "not within range 2 of an objective, no capture that turn (play.battle_rules); "
       "Nothing, a second action on 2/3; again when back from Reserve (play.battle_reserve)",
       "L3391-3393"),
    _r("Air Assault", S, P, "carried by an Airlifter, may dismount after it activates; hurt "
       "on P only when it is destroyed (grid battles: play.battle_carry)", "L3379-3381",
       gap="duels on a line; boarding an Airlifter during the game"),
    _r("Camouflage", S, P, "starts camouflaged: no attack on it from range 3 or more until it "
       "attacks (engagement kernel); grid battles also end it on a March Move and play the "
       "Camouflage special action (play.battle_rules)", "L3453-3457",
       gap="the Camouflage special action in duels (grid battles play it)"),
    _r("Improved Camouflage", S, P, "played as Camouflage in grid battles (play.battle_rules)",
       "L3453-3457", gap="its ENLIST improvement over Camouflage (text in no seed)"),
    _r("Smoke Launchers", S, P, "once per game a free smoke screen on itself when threatened: "
       "cover until the end of the next turn (engagement kernel); in grid battles the 2x2 "
       "screen also blocks sight through it (play.battle_rules)", "L3651-3653, L3226-3230"),
    _r("Smoke Grenades", S, P, "its own text is in no seed: played as Smoke Launchers (a "
       "decision, play.battle_rules): once per game a free smoke screen on itself when "
       "threatened (engagement kernel; grid battles: the 2x2 screen)", "L3651-3653, L3226-3230",
       gap="its ENLIST text (in no seed) beyond the Smoke Launchers reading"),
    _r("Black Ops", S, P, "its side rolls four initiative dice while it is in play (grid "
       "battles: play.battle_rules)", "L3441-3443",
       gap="duels on a line (their initiative is a fair coin)"),
    _r("Interrogate", S, P, "once the unit eliminates a hero or officer with a close-combat "
       "weapon or an Execute, its side rolls four initiative dice for the rest of the game "
       "(grid battles: play.battle_rules; an officer squad's officer is the soldier its owner "
       "removes last)", "L3561-3563", gap="duels on a line (their initiative is a fair coin)"),
    _r("Officer", S, P, "Rally and Get Moving You Bunch of Monkeys under the policy "
       "orders=get-moving (engagement kernel; grid battles: play.battle_rules, and Ammo Drop "
       "for a unit whose Limited Ammo ran dry, within range 2 and sight or by radio)",
       "L3615-3617, L3711-3731",
       gap="Ammo Drop in duels on a line"),
    _r("Command Squad", S, P, "its officer's Rally and Get Moving, with a radio (engagement "
       "kernel; grid battles: play.battle_rules, and Ammo Drop; the officer is a soldier the "
       "owner removes last and a Sniper may name: his fall ends the command actions)",
       "L3469-3471, L3707-3765",
       gap="Ammo Drop and the officer soldier in duels on a line; the medic's and mechanic's "
       "actions (the Command Squad cards carry neither skill)"),
    _r("NCO Command Squad", S, N, "command actions (tactics-2013 Cerberus)", "004:L406-418"),
    _r("Cultist Command Squad", S, N, _NO_TEXT + "; command actions"),
    _r("Command Vehicle", S, P, "an officer with a radio whose failed command dice are "
       "re-rolled (grid battles: play.battle_rules)", "L3473-3475",
       gap="duels on a line, and the Command Squad, Medic or Mechanic mounted in it "
           "(passengers are not played)"),
    _r("General", S, P, "its officer actions are free (engagement kernel: Get Moving; grid "
       "battles: Rally and Get Moving, play.battle_rules); grid battles: joined to a unit "
       "with an officer, two dice for Get Moving and Ammo Drop, either succeeding (OPEN-20; "
       "Rally keeps its two dice per unit)",
       "L3535-3537", gap="the two dice in duels on a line"),
    _r("Tactician", S, N, _NO_TEXT),
    _r("Get Moving You", S, P, "names the officer's Get Moving You Bunch of Monkeys action "
       "(its card is an Officer): played with the Officer skill (engagement kernel; grid "
       "battles: play.battle_rules)", "L3723-3727"),
    _r("Follow Me", S, P, "once per turn: each friendly infantry unit of armour 1-2 in range 2 "
       "and sight moves 2 on a P (grid battles: play.battle_rules)", "L3531-3533",
       gap="duels on a line"),
    _r("Red Banner", S, P, "three dice per unit it Rallies (grid battles: play.battle_rules)",
       "L3627-3629", gap="duels on a line (the engagement kernel rolls two)"),
    _r("Desert Fox", S, P, "the unit its Get Moving reactivates gains At the Double for that "
       "activation (grid battles: play.battle_rules)", "L3499-3501",
       gap="duels on a line (the engagement kernel's Get Moving grants nothing more)"),
    _r("Combat Medic", S, P, "Get Up, It Ain't That Bad and Inject Stimulants as a Medic (its "
       "own text is in no seed: our reading of the name; grid battles: play.battle_rules)",
       "L3735-3757", gap="duels on a line"),
    _r("Medic", S, P, "Get Up, It Ain't That Bad: a soldier or a damage point back on P or T; "
       "Inject Stimulants: a token, then one die when the unit activates, three actions "
       "(decision on the lost faces: P the player chooses, T Attack -> Sustained Attack, S "
       "Move -> March Move, in the order of L3753-3755; grid battles: play.battle_rules, "
       "policy stim-strikers)", "L3735-3757", gap="duels on a line"),
    _r("Mechanic", S, P, "Makeshift Repair: an adjacent friendly vehicle in sight gets a "
       "point back per P on five dice (grid battles: play.battle_rules)",
       "L3587-3589, L3759-3765",
       gap="duels on a line (no squares there) and the repair of critical hits (L3090)"),
    _r("Mechanic Crew", S, P, "Makeshift Repair as Mechanic (its ENLIST text is in no seed: "
       "our reading of the name; grid battles: play.battle_rules)", "L3759-3765",
       gap="duels on a line (no squares there) and whatever its ENLIST text adds"),
    _r("Mechanic + Engineer Vehicle", S, N, "repairs and engineering actions (ENLIST)",
       "L3759-3765, L3507-3509"),
    _r("Critical Repairs", S, N, _NO_TEXT),
    _r("Medevac", S, P, "returns eliminated soldiers of a squad within range 1 on 1/3 each "
       "(grid battles: play.battle_rules)", "L3591-3593",
       gap="duels on a line (no squares there)"),
    _r("Resurrection", S, P, "returns eliminated Mindless Zombies within range 1 on 1/3 each "
       "(grid battles: play.battle_rules)", "L3631-3633", gap="duels on a line"),
    _r("Artillery Observer", S, P, "its Attack may be a friendly unactivated artillery unit's, "
       "fired in that unit's range through the observer's line of sight (grid battles: "
       "play.battle_rules)", "L3419-3425, L3218-3224",
       gap="duels on a line (no squares there) and observed smoke shells"),
    _r("Air Traffic Control", S, P, "one action, a die on P: an activated friendly aircraft "
       "activates again (policy orders=get-moving; engagement kernel)", "L3387-3389",
       gap="grid battles (the board's officers do not order aircraft)"),
    _r("Jammer", S, P, "an enemy officer's radio Rally or Get Moving within range 6 re-rolls "
       "its successes, and so does an attack an Artillery Observer within range 6 triggers "
       "(grid battles: play.battle_rules, the dice kernel's JAMMED)", "L3565-3567",
       gap="duels on a line"),
    _r("Radar", S, P, "failed dice of an Attack or Sustained Attack on an aircraft re-rolled "
       "once (rules.attack: not on top of the sustained re-roll)",
       _BSD + "46d2-2b5b-abf1-b90a (Operation Kondor p. 112)"),
    _r("Spy", S, P, "off the table until its two dice roll a P: placed within range 1 of an "
       "enemy, one action per P (grid battles: play.battle_rules)", "L3655-3657",
       gap="duels on a line (no squares there)"),
    _r("Execute", S, P, "special action: eliminates a soldier (a joined hero first) of an "
       "enemy infantry unit with a Stunned token within range 1 (grid battles: "
       "play.battle_rules)", "L3511-3513", gap="duels on a line (no special actions there)"),
    _r("Passengers", S, P, "carries infantry a list puts aboard: not targetable, dismounts "
       "with a Move before its vehicle activates, one die per passenger when it is destroyed "
       "(grid battles: play.battle_carry)", "L3619-3621, L522-530",
       gap="duels on a line; mounting during the game"),
    _r("Carry Capacity", S, N, "carries infantry (tactics-2013 Cerberus)", "004:L364"),
    _r("Airlifter", S, P, "carries one Airmobile or Air Assault vehicle a list puts aboard "
       "(decision: one); the vehicle is not targetable, dismounts with a Move before it "
       "activates, rolls its damage when it is destroyed (grid battles: play.battle_carry)",
       "L3403-3405, L532-536", gap="duels on a line; picking a vehicle up during the game"),
    _r("Airmobile", S, X, "only lets an Airlifter carry it; the carrying is the Airlifter's "
       "rule (played on the grid)", "L3407-3409"),
    _r("Sealifter", S, N, "carries units by sea. Decision: not played -- no list puts units "
       "aboard a Sealifter (lists board Passengers and Airlifters only) and the scenarios' "
       "tables have no sea or shore to land on (water only as scenario 110's river, L2822); "
       "the LCM-46 plays as a Naval Unit with its weapons", "L3643-3645, L538-548"),
    _r("Trailer", S, N, _NO_TEXT + "; carrying"),
    _r("Naval Unit", S, P, "a free Attack right after its March Move, when worth something "
       "(grid battles: play.battle_rules)", "L3607-3609",
       gap="duels on a line; its water-only movement and its wreck becoming water (the "
           "scenarios' tables have water only as scenario 110's river, L2822: it moves as "
           "a vehicle of its class)"),
    _r("Amphibious", S, P, "moves through water and swamp as open ground (scenario 110's "
       "river, L2822; grid battles: its own movement tables, play.battle_carry)",
       "L3411-3413", gap="duels on a line (no terrain there)"),
    _r("Flying", K, P, "passes over any terrain as open ground, ends where it can stand "
       "(grid battles: the board's JUMP class, play.battle_rules)", "L3527-3529",
       gap="a joined hero without Flying grounds the unit (L3529)"),
    _r("Jump", S, N, "jumps over obstacles and units (2009); " + _BOARD, "001:L722-728"),
    _r("Rocket Pack", S, N, _NO_TEXT + "; movement"),
    _r("Trail Blazer", S, P, "moves through enemy units (grid battles, play.battle_rules)",
       "L3693-3695"),
    _r("Tracked", K, P, "terrain movement by the board's move_cost for tracked vehicles (the "
       "terrain table of pp. 19-20 is lost: play.board's decision)", "L3689-3691"),
    _r("Wheeled", K, P, "terrain movement by the board's move_cost for wheeled vehicles (the "
       "terrain table of pp. 19-20 is lost: play.board's decision)", "L3697-3699"),
    _r("Half Tracked", K, P, "terrain movement by the board's move_cost for half-tracks (the "
       "terrain table of pp. 19-20 is lost: play.board's decision)", "L3547-3549"),
    _r("Large", K, P, _LARGE, _LARGE_LINES, gap=_TALL_GAP),
    _r("Large Vehicle", K, P, _LARGE, _LARGE_LINES, gap=_TALL_GAP),
    _r("Huge", K, P, _HUGE, _LARGE_LINES, gap=_TALL_GAP),
    _r("Huge Vehicle", K, P, _HUGE, _LARGE_LINES, gap=_TALL_GAP),
    _r("Dozer Blade", S, P, "the Dozer special action digs in: cover from any angle until it "
       "moves; two Engineering actions bury an adjacent bunker or strongpoint and its "
       "occupants on P (grid battles: play.battle_carry)", "L3503-3505, L3355-3357",
       gap="duels on a line; a buried fortification's terrain stays (the seeds do not say "
       "what it becomes); filling a trench or clearing a minefield gap (no scenario board "
       "has either)"),
    _r("Engineer Vehicle", S, X, "decision: its own engineering action, cutting a gap in "
       "barbed wire with Cutting or Grapple weapons (L3351-3353), has nothing to act on: no "
       "board of the fifteen scenarios has barbed wire (their terrain, L2388-3055: trees, "
       "tank traps, small structures, ammo crates, buildings, roads, a strongpoint L2638, a "
       "bunker L2678, a river L2822; tests/test_battle_carry.py checks the boards); the "
       "Dozer Blade's actions are that skill's row; clearing wrecks (L3059-3061) is any "
       "vehicle's", "L3507-3509, L3347-3357"),
    _r("Assault Vehicle", S, P, "its passengers may activate and dismount after the vehicle "
       "has activated (grid battles: play.battle_carry's policy picks a passenger that wants "
       "off before its vehicle, one that does not after it, when it may still dismount)",
       _BSD + "c697-cca3-4af2-fbc5 (Operation Kondor p. 112)",
       gap="duels on a line (no passengers there)"),
    _r("Assault Shield", S, P, "a close-combat hit on the unit is cancelled on P, one die "
       "after any save (rules.attack; '[bloc]' is the P face, RULES.md section 1)",
       _BSD + "aef5-44e8-7fd4-b9e6; SSU.cat rule 3055ccf0-a891-fa26-f8d6-ff245a12999a",
       gap="a joined hero's own shield in a squad without one"),
    _r("Strongpoint", S, P, "holds its strongpoint, or a bunker for the '(Bunker)' card: "
       "save re-rolls, close-combat saves, no fire at aircraft from a bunker "
       "(rules.attack.fortification_of)", "L3663-3665, L3112-3138",
       gap="the fortification's facing, fire arcs and line of sight (L3130-3132; board)"),
    _r("Aircraft", K, P, "evade saves; in grid battles flies over terrain and units, sees and "
       "is seen outside buildings, never reacts", "L3395-3401, L510-516, L655, L813",
       gap="the improved evade save after a March Move (every aircraft takes the plain one, "
       "L3397-3401)"),
    _r("Raid", S, P, "the vehicle's actions spent on Move + Attack + Move (grid battles: "
       "a Move and Attack plan gets its second Move, play.battle_kernel); nothing "
       "reactivates a unit on the board", _BSD + "b24c-9323-2628-3003",
       gap="duels on a line (no squares there)"),
    _r("Vehicle Squadron", S, N, _NO_TEXT),
    _r("Blutkreuz", S, P, "Mindless Zombies within range 1 move 3, march 4 and Charge (grid "
       "battles: play.battle_rules)", "L3445-3447", gap="duels on a line"),
    _r("Blutkreuz Traitor", S, N, _NO_TEXT),
    _r("Mindless", S, P, "contests objectives, never holds them (grid battles: "
       "play.battle_rules)", "L3599-3601", gap="duels on a line (no objectives there)"),
    _r("Quick Recovery", S, P, "no Nothing action after an Airborne drop, shared with a "
       "joined squad, not a vehicle (engagement kernel; grid battles: play.battle_kernel)",
       _BSD + "4a1d-986b-27ce-95ef (Operation Kondor p. 112)"),
    _r("Devour", S, N, "the hero heals one point per damage point she inflicts in close "
       "combat: battles never heal", _BSD + "ed89-509b-43fb-3b05"),
    _r("Crazy Jimmy", S, P, "the vehicle he pilots has a cover save after its March Move "
       "until its next activation (grid battles: play.battle_kernel)", "BSD:Allies.cat rule "
       "223b-ebcf-b2ba-a969", gap="duels on a line (no March Move cover there)"),
    _r("Sibling", S, N, "The Dragon and The Phoenix may join one unit and then have Expert "
       "with every weapon: battles join one hero per unit",
       "BSD:SSU.cat rules 5d00-3935-19bd-a736 (Sibling: The Phoenix) and Sibling: The Dragon"),
    _r("Possessed", S, N, "the hero swaps to her Possessed card once damaged: battles field "
       "one card per unit", "BSD:Mythos.cat rule de46-2ead-1b56-32bd"),
    _r("Mythos Creature", S, P, "never takes Under Fire or Suppression tokens "
       "(rules.attack.token_immune); immune to critical hits, which no engine plays",
       _BSD + "5ecc-bf37-dcad-4e11"),
    _r("Lesser Mythos Creatures", S, P, "never the target of Command Squad, Officer or "
       "Medic special actions (engagement kernel: Rally and Get Moving skip it; "
       "rules.unit_rules.no_orders for the board's command actions)",
       _BSD + "049d-d288-a828-4c96"),
    _r("Psychic Scream", S, P, "its line fires only in a free action, once per game: an "
       "Attack on every unit, friend or foe, within range 3, line of sight ignored, no "
       "infantry or cover save (rules.attack; grid battles: play.battle_kernel, when it "
       "takes more from enemies than from friends; duels: the engagement kernel, when more "
       "enemy units than friendly ones stand within range 3)", _BSD + "0a01-816f-3ce5-05f5"),
    _r("Psychic Vortex", S, N, _NO_TEXT),
    _r("Psychic Choir", S, N, _NO_TEXT),
    _r("Explode", S, N, _NO_TEXT),
    _r("Fanatical", S, N, _NO_TEXT),
    _r("High Priest", S, N, _NO_TEXT),
    _r("Exalted", S, N, _NO_TEXT),
    _r("Master Fighter", S, N, _NO_TEXT),
    _r("Master Deceiver", S, N, _NO_TEXT),
    _r("Poison Master", S, N, _NO_TEXT),
    _r("Way of the Serpent", S, N, _NO_TEXT),
    _r("Burn It!", S, N, _NO_TEXT),
    _r("Juice It Up!", S, N, _NO_TEXT),
    _r("Clean My Optics", S, N, _NO_TEXT),
    _r("Dazzling Speed", S, N, _NO_TEXT),
    _r("Drive By Shooting", S, N, _NO_TEXT),
    _r("Ammo Dump", S, N, _NO_TEXT + "; refills ammunition"),
    _r("Small Ammo Dump", S, N, _NO_TEXT + "; refills ammunition"),
    _r("Ammo Supply", S, N, _NO_TEXT + "; refills ammunition"),
    _r("Justine's Crew", S, N, _NO_TEXT),
    _r("Rosie's Crew", S, N, _NO_TEXT),
    _r("Ace Gunner", S, P, "Expert on every weapon of the vehicle it pilots "
       "(rules.attack.weapon_skills)", _BSD + "c7d5-d278-ef0e-0ad8"),
    _r("Fast", S, N, "moves further (2009/2013)", "001:L702-704"),
    _r("Assault", S, N, "once per game the unit doubles its attack value (2009)",
       "001:L672-674"),
    # -- no effect on play in a battle
    _r("Mercenary", S, X, "army building: fielded by any bloc", "L3595-3597, L879-883"),
    _r("Unique", K, X, "army building: one per army", ""),
    _r("Loner", S, X, "a joining restriction, checked when a hero joins a unit",
       "L3579-3581"),
    _r("Gorilla", S, X, "a joining restriction (gorilla heroes join gorilla units)",
       "L3539-3541"),
)}
#: weapon keyword (see :data:`dustsim.data.cards.WEAPON_KEYWORDS`) -> rule
WEAPON_RULES: dict[str, Rule] = {k: r for k, r in (
    ("laser", _r("Laser", W, P, "hits chain on P", "L3276-3282")),
    ("cutting", _r("Cutting", W, P, "hits chain on P", "L3234-3242",
                   gap="engineering actions (L3351-3353)")),
    ("phaser", _r("Phaser", W, P, "no cover save", "L3292-3296")),
    ("grenade", _r("Grenade", W, P, "infantry lose the cover save", "L3272-3274")),
    ("flame", _r("Flame", W, P, "no save; Suppression token (rules.attack). Decision: "
                 "battles strike the target unit only, as any attack: the Flame Template "
                 "(Dust 1947 Universal Template) whose squares it covers on a grid (L3248) "
                 "is a figure lost from the seeds, so its shape is not played",
                 "L3244-3248",
                 gap="the Flame Template over the other units in its path, friends "
                     "included (L3246-3248: its shape is in no seed)")),
    ("artillery", _r("Artillery", W, P, "no infantry save in the open; minimum range; grid "
                     "battles: the 2 x 2 Artillery Area around the target, a separate attack "
                     "on every other unit in it, friend or foe (play.battle_kernel._area; the "
                     "policy picks the block with most enemies less friends); indirect fire "
                     "through an Artillery Observer", "L3218-3224",
                     gap="duels on a line (no squares there); a Target Point on an empty "
                     "square (the grid aims at a unit); smoke shells")),
    ("sniper", _r("Sniper", W, P, "negates cover and infantry saves; grid battles: the "
                  "attacker names the miniature its hits go to (the policy sniper-picks: a "
                  "joined hero one hit finishes, the officer soldier, a special weapon's "
                  "carrier; play.battle_rules.pick_aim)", "L3315-3319",
                  gap="the chosen casualty in duels on a line")),
    ("reload", _r("Reload", W, P, "Loaded token; Reload + Attack", "L3304-3306")),
    ("limited-ammo", _r("Limited Ammo", W, P, "ammo boxes spent per attack", "L3284-3290")),
    ("power-scope", _r("Power Scope", W, P, "hits on P,T in a Sustained Attack",
                       "L3300-3302")),
    ("spray", _r("Spray", W, P, "no save (tactics-2013)", "000:L153")),
    ("set-up", _r("Set-up", W, P, "half the dice after moving (tactics-2013)", "000:L385")),
    ("burst", _r("Burst", W, P, "double dice against a unit that has not moved "
                 "(tactics-2013)", "004:L412-414")),
    ("tesla", _r("Tesla", W, P, "damage gives a Stunned token: first action Nothing, no "
                 "retaliation, one reactive die (engagement kernel)", "L3325-3335")),
    ("grapple", _r("Grapple", W, P, "a hit gives a Stunned token held until the grappler "
                   "acts or dies: no move, no fight (engagement kernel)", "L3264-3270",
                   gap="engineering actions (L3270, L3351-3353)")),
    ("salvo", _r("Salvo", W, P, "policy salvo=when-loaded: a Salvo attack doubles the dice, "
                 "then Reload + Attack (engagement kernel)", "L3308-3312")),
    ("volley", _r("Volley", W, P, "policy volley=all: every box left in one attack, dice x "
                  "boxes (engagement kernel)", "L3337-3341")),
    ("wire-guided", _r("Wire-guided", W, P, "fired alone in an Attack action, misses are "
                       "re-rolled: grid battles fire it alone when that is worth more than "
                       "every line together (play.battle_rules)", "L3343-3345",
                       gap="duels on a line and reactive Attacks (every weapon fires together "
                           "there)")),
    ("smoke", _r("Smoke", W, N, "smoke screen instead of an attack; " + _BOARD,
                 "L3226-3230")),
    ("flame-burst", _r("Flame Burst", W, P, "no save of any kind; Suppression token "
                        "(rules.attack)", _BSD + "540e-f4c4-e4c9-0153 (Operation Kondor "
                        "p. 112)", gap="the blast template over every unit it covers " + _BOARD)),
    ("radiation", _r("Radiation", W, P, "the target re-rolls its successful saves "
                     "(rules.attack, dice kernel)", _BSD + "34cd-c25a-7247-8ee9; SSU.cat rule "
                     "d31adae5-73e4-36cc-652e-fc734f419a44")),
    ("large-ordnance", _r("Large Ordnance", W, P, "four squares like artillery: every "
                          "other unit, friend or foe, in a 2 x 2 block holding its target's "
                          "square takes its own attack (grid battles: play.battle_kernel)",
                          _BSD + "5fce-2ac8-7580-9ecc, L3218-3224",
                          gap="duels on a line (no squares there)")),
    ("head-shot", _r("Head Shot", W, P, "a hit gives a Stunned token (engagement kernel); "
                     "the attacker may aim (--aim) in `dustsim attack` and names the "
                     "miniature as a Sniper in grid battles (play.battle_rules.pick_aim)",
                     _BSD + "b11e-2700-038e-1344",
                     gap="the chosen casualty in duels on a line")),
    ("ignores-cover", _r("Ignores Cover", W, P, "no cover save", "")),
    ("under-barrel", _r("Under-barrel", W, X, "a second weapon on a soldier's rifle: "
                        "fired as its own line", "")),
    ("move-and-fire", _r("Move and Fire", W, N, "weapon fires around a move", "L3603-3605")),
    ("assault-shield", _r("Assault Shield", W, P, "a close-combat hit on the unit is "
                          "cancelled on P (rules.attack; the skill's row)",
                          _BSD + "aef5-44e8-7fd4-b9e6")),
    # a weapon's own rule as DUST ENLIST lists it (the weapon's "specials"): the weapon it
    # is printed on is the one it names
    ("expert", _r("Expert", W, P, "the Expert skill on the weapon it is printed on: hits on "
                  "P,T (rules.attack, every engine and `dustsim attack`)", "L3515-3517")),
    ("savage-animal", _r("Savage Animal", W, P, "the Savage Animal skill on the weapon it "
                         "is printed on: hits on P,T (rules.attack)", "L3635-3637")),
    ("psychic-scream", _r("Psychic Scream", W, P, "the line the card's Psychic Scream "
                          "skill fires (that skill's row)", _BSD + "0a01-816f-3ce5-05f5")),
    ("stealth", _r("Stealth", W, P, "attacking with this weapon does not remove Camouflage: "
                   "an Attack that fires only Stealth lines keeps it (engagement and grid "
                   "battle kernels, W_STEALTH)", _BSD + "328a-77cc-4b29-e85c")),
    ("spores", _r("Spores", W, N, "an attack on every unit within range 1, infantry without "
                  "their cover save; the battles fire the line at one target like any "
                  "other", _BSD + "04a9-e6fe-0515-8e2c")),
    ("rail-weapon", _r("Rail Weapon", W, N, _NO_TEXT + " (DUST ENLIST names it on rail "
                       "guns); the line's dice are played")),
    ("phosphorus", _r("Phosphorus", W, N, _NO_TEXT + "; the line's dice are played")),
    ("phosphorus-flame", _r("Phosphorus Flame", W, N, _NO_TEXT + "; the line's dice are "
                            "played")),
    ("bombing-run", _r("Bombing Run", W, N, _NO_TEXT + "; the line's dice are played")),
    ("squad-support-weapon", _r("Squad Support Weapon", W, N, _NO_TEXT + " (the Support "
                                "Weapon rule, L3679-3681, is a unit's); the line's dice "
                                "are played")),
    ("artillery-barrage", _r("Artillery Barrage", W, N, _NO_TEXT + "; the line's dice are "
                             "played")),
)}


#: each engine's own part of a played rule's ``gap`` where it differs (issue 23: a battle's
#: notes name exactly what its engine leaves out): rule name -> (line_gap, board_gap), None
#: where the engine leaves out the whole ``gap``, "" where it plays the whole rule. The grid
#: plays what a gap calls "duels on a line" (its reason says how); the line has no squares,
#: terrain or objectives, so the movement rules the board plays are its gaps too.
_NO_TERRAIN = "duels on a line (no terrain there)"
ENGINE_GAPS: dict[str, tuple[str | None, str | None]] = {
    **dict.fromkeys(("Spotter", "Assassin", "Air Alert", "First Strike", "Camouflage",
                     "Black Ops", "Interrogate", "Officer", "General", "Follow Me",
                     "Red Banner", "Desert Fox", "Medevac", "Resurrection", "Jammer", "Spy",
                     "Execute", "Amphibious", "Large", "Large Vehicle", "Huge",
                     "Huge Vehicle", "Assault Vehicle", "Raid", "Blutkreuz", "Mindless",
                     "Crazy Jimmy", "Sniper", "Large Ordnance", "Head Shot", "Medic",
                     "Combat Medic"), (None, "")),
    "Air Traffic Control": ("", None),  # the line's officers order aircraft, the board's not
    "Air Assault": (None, "boarding an Airlifter during the game"),
    "Passengers": (None, "mounting during the game"),
    "Airlifter": (None, "picking a vehicle up during the game"),
    "Command Squad": (None, "the medic's and mechanic's actions (the Command Squad cards "
                            "carry neither skill)"),
    "Command Vehicle": (None, "the Command Squad, Medic or Mechanic mounted in it "
                              "(passengers are not played)"),
    "Mechanic": (None, "the repair of critical hits (L3090)"),
    "Mechanic Crew": (None, "whatever its ENLIST text adds"),
    "Artillery Observer": (None, "observed smoke shells"),
    "Naval Unit": (None, "its water-only movement and its wreck becoming water (the "
                         "scenarios' tables have water only as scenario 110's river, L2822: "
                         "it moves as a vehicle of its class)"),
    "Dozer Blade": (None, "a buried fortification's terrain stays (the seeds do not say what "
                          "it becomes); filling a trench or clearing a minefield gap (no "
                          "scenario board has either)"),
    "Artillery": (None, "a Target Point on an empty square (the grid aims at a unit); smoke "
                        "shells"),
    "Wire-guided": (None, "reactive Attacks (every weapon fires together there)"),
    **dict.fromkeys(("Tracked", "Wheeled", "Half Tracked"), (_NO_TERRAIN, None)),
    "Flying": (_NO_TERRAIN, None),
    "Trail Blazer": ("duels on a line (no squares there: units never pass an enemy)", None),
}
SKILL_RULES = {k: (replace(r, line_gap=ENGINE_GAPS[r.name][0],
                           board_gap=ENGINE_GAPS[r.name][1])
                   if r.name in ENGINE_GAPS and r.status == "played" else r)
               for k, r in SKILL_RULES.items()}
WEAPON_RULES = {k: (replace(r, line_gap=ENGINE_GAPS[r.name][0],
                            board_gap=ENGINE_GAPS[r.name][1])
                    if r.name in ENGINE_GAPS and r.status == "played" else r)
                for k, r in WEAPON_RULES.items()}


#: rules of the rulebook that no card names but every battle plays (issue 23), each with its
#: decision where the seeds leave it open; ``dustsim skills`` lists them after the table
RULEBOOK_RULES: tuple[Rule, ...] = (
    _r("Improvised Close Combat Weapon", W, P, "every infantry and vehicle unit with no "
       "close-combat weapon on its cards fights with one rated 1/1 in every column (the "
       "event log's 'Improvised weapon'). Decision (digest OPEN-21): one die per soldier, "
       "from the worked example (each unit rolls for all of its soldiers), and only for a "
       "unit with no listed close-combat weapon (rules.unit_rules.improvised_weapons; duels "
       "and grid battles)", "L767-787"),
)


def skill_rule(skill: str) -> Rule | None:
    """The table's row for a card's skill (by its base name), or None."""
    return SKILL_RULES.get(skill_base(skill))


def keyword_rule(keyword: str) -> Rule | None:
    """The table's row for a weapon keyword, or None."""
    return WEAPON_RULES.get(keyword)


def card_rules(card: Card, *, fielded: bool = False) -> list[Rule]:
    """Every rule a card carries, skills first, each once. ``fielded``: only the weapons a
    battle fields (not optional, carried by someone); a weapon with ammunition boxes carries
    the Limited Ammo rule."""
    out: dict[tuple[str, str], Rule] = {}
    for s in card.skills:
        r = skill_rule(s)
        if r is not None:
            out.setdefault((r.kind, r.name), r)
    for w in card.weapons:
        if fielded and (w.optional or w.count == 0):
            continue
        kws = list(w.keywords) + (["limited-ammo"] if w.ammo is not None else [])
        for k in kws:
            r = keyword_rule(k)
            if r is not None:
                out.setdefault((r.kind, r.name), r)
    return list(out.values())


def _cite(r: Rule) -> str:
    return f"; {r.lines if ':' in r.lines.split(',')[0] else '003:' + r.lines}" \
        if r.lines else ""


def unplayed_rules(cards: Iterable[Card], engine: str | None = None) -> list[str]:
    """A battle's notes: one line per rule the battles do not play (``attack only``, ``not
    played``, or the gap of a played rule) that these cards carry (their fielded weapons),
    naming the cards, in table order (skills, then weapon rules). ``engine``: ``"line"`` or
    ``"board"`` names the gaps of that engine only (:meth:`Rule.gap_in`); None, either's."""
    if engine is not None and engine not in ENGINES:
        raise ValueError(f"engine {engine!r} is not one of {', '.join(ENGINES)}")
    by_rule: dict[Rule, list[str]] = {}
    for c in cards:
        if c is None:
            continue
        for r in card_rules(c, fielded=True):
            if r.unplayed or r.gap_in(engine):
                names = by_rule.setdefault(r, [])
                if c.name not in names:
                    names.append(c.name)
    order = {r: i for i, r in enumerate([*SKILL_RULES.values(), *WEAPON_RULES.values()])}
    out = []
    for r in sorted(by_rule, key=order.__getitem__):
        who = ", ".join(by_rule[r])
        if r.unplayed:
            out.append(f"{r.name} ({r.kind}) {r.status} in battles: {r.reason}{_cite(r)} "
                       f"-- {who}")
        else:
            out.append(f"{r.name} ({r.kind}) played in battles except {r.gap_in(engine)}"
                       f"{_cite(r)} -- {who}")
    return out


def note_rule_names(notes: Iterable[str]) -> set[str]:
    """The rule names :func:`unplayed_rules` notes name (for tests and tools)."""
    return {n.split(" (", 1)[0] for n in notes
            if " in battles" in n and n.split(" (", 1)[0] in _NAMES}


def unplayed_warnings(cards: Iterable[Card]) -> list[str]:
    """``validate --warnings``: one line per card carrying a rule the battles do not play
    (the table's ``attack only`` / ``not played`` rules and the gaps of played ones), each
    as printed on the card with its status."""
    out = []
    for c in cards:
        items: list[str] = []
        for sk in c.skills:
            r = skill_rule(sk)
            if r is not None and (r.unplayed or r.gap):
                items.append(f"{sk} [{r.status if r.unplayed else 'played but ' + r.gap}]")
        seen = {r.name for r in card_rules(c) if r.kind != "weapon rule"}
        for r in card_rules(c):
            if r.kind == "weapon rule" and (r.unplayed or r.gap) and r.name not in seen:
                items.append(f"{r.name} [{r.status if r.unplayed else 'played but ' + r.gap}]")
        if items:
            out.append(f"warning: {c.file}: unit {c.name!r}: rules not played in battles: "
                       + ", ".join(items))
    return out


def skill_warnings(cards: Iterable[Card]) -> list[str]:
    """``validate --warnings``: the same lines as :func:`unplayed_warnings` (one table)."""
    return unplayed_warnings(cards)


def played_skill_names() -> frozenset[str]:
    """Skill names (base names and their aliases) the battles play or that change nothing in
    them: what the value model counts as played (:mod:`dustsim.review.value`)."""
    keep = {k for k, r in SKILL_RULES.items() if not r.unplayed}
    return frozenset(keep | {a for a, b in SKILL_ALIASES.items() if b in keep})


def skills_table(cards: Iterable[Card], edition: str | None = None) -> list[dict]:
    """Every rule of the table carried by ``cards`` (of ``edition``, if given): name, kind,
    status, reason, lines, gap (and ``gap_line`` / ``gap_board``: each engine's own part),
    changes_play, the cards carrying it and their army points (unknown costs counted as 0 and
    named in ``ap_unknown``)."""
    rows: dict[Rule, dict] = {}
    for c in cards:
        if edition is not None and c.edition != edition:
            continue
        for r in card_rules(c):
            row = rows.setdefault(r, {"name": r.name, "kind": r.kind, "status": r.status,
                                      "reason": r.reason, "lines": r.lines, "gap": r.gap,
                                      "gap_line": r.gap_in("line"),
                                      "gap_board": r.gap_in("board"),
                                      "changes_play": r.changes_play, "cards": [], "ap": 0.0,
                                      "ap_unknown": []})
            row["cards"].append(c.name)
            if c.ap is None:
                row["ap_unknown"].append(c.name)
            else:
                row["ap"] += float(c.ap)
    order = {r: i for i, r in enumerate([*SKILL_RULES.values(), *WEAPON_RULES.values()])}
    return [rows[r] for r in sorted(rows, key=order.__getitem__)]


def unplayed_share(cards: Iterable[Card], edition: str) -> dict:
    """Share of the edition's cards and army points on cards carrying a rule that changes play
    but that battles do not play (status ``not played`` or ``attack only``)."""
    ed = [c for c in cards if c.edition == edition]
    ap = sum(float(c.ap) for c in ed if c.ap is not None)
    hit = [c for c in ed if any(r.unplayed for r in card_rules(c))]
    hit_np = [c for c in ed if any(r.status == "not played" for r in card_rules(c))]
    ap_hit = sum(float(c.ap) for c in hit if c.ap is not None)
    ap_np = sum(float(c.ap) for c in hit_np if c.ap is not None)
    return {"edition": edition, "cards": len(ed), "ap": ap,
            "cards_unplayed": len(hit), "ap_unplayed": ap_hit,
            "share_cards": len(hit) / len(ed) if ed else float("nan"),
            "share_ap": ap_hit / ap if ap else float("nan"),
            "cards_not_played": len(hit_np), "ap_not_played": ap_np,
            "share_ap_not_played": ap_np / ap if ap else float("nan")}


_NAMES = frozenset(r.name for r in [*SKILL_RULES.values(), *WEAPON_RULES.values()])
