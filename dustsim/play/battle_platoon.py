"""Platoon advantages in grid battles (issue 23; 1947 L950-958): what each of the 30 advantages
does on the board, the flags the battle kernel reads for it, and the one table of what battles
play (:data:`ADVANTAGES`, shown by ``dustsim platoons --advantages`` and named in the notes).

A list earns its platoon's advantage only when it fields the whole platoon (the command unit
and every required unit, L950-958); the army layer decides that and which units the text names
(:func:`dustsim.army.platoons.battle_grants`) and passes them in as plain data
(:class:`Grant`: per unit of the list its *roles*). The meaning of each role lives here
(:data:`ROLES`), written into the kernel's unit facts by :func:`fill_advantage_facts`:

* ``scout``, ``airborne``, ``charge``: the unit gains that skill (the kernel's own rule bits of
  :mod:`dustsim.play.battle_rules`; Rangers Lead the Way L1139, Tight Quarters L1794, Air Drop
  L1219, Airborne Assault L1850 is Airborne's drop word for word, BRAINSSSS! L1634).
* ``brave``: three dice for its token removal roll (Semper Fi L1325, Unflappable L1379).
* ``no-tokens``: never Under Fire nor Suppressed (Unflappable, a unit that already had Brave,
  L1381).
* ``vigilant``: its reactive dice succeed on P and S (Vigilant L1947; the digest groups the two
  faces with Advanced Reactive Fire's, L3373: a decision); the list always defends where the
  scenario draws attacker and defender (a Fortified Platoon, L1949).
* ``ordered``: a unit its platoon's leader (or walker) may order with the advantage below.
* ``sure-order`` (Mission Tactics, L1459): the leader's Get Moving You Bunch of Monkeys on an
  ``ordered`` unit of its platoon succeeds on P or T (2/3) instead of P (L3725). Policy: the
  officer's (orders a unit worth more AP than itself at one face in three) weighted by the
  chance: a unit whose AP times its successful faces beats the officer's AP, the best such.
* ``third-order`` (Blitzkrieg Tactics, L1431, L1696): after its two actions, the leader may
  take a third action, Get Moving on an ``ordered`` unit of its platoon (within range 2 and
  sight, or anywhere with a radio, L3713-3725), every activation. Decision: taken after the
  other actions (a success ends the activation, L3727), by a leader on the board that is not
  grappled, whether or not it has the Officer skill (the text grants it to the Platoon Leader).
* ``walker-order`` (Grab Them by the Nose, L1053): the walker may use Get Moving (one action)
  on another ``ordered`` walker of its platoon anywhere on the board (cockpit radios).
* ``ape-order`` (Primal Instinct, L1566): Markus may use Get Moving (one action) on an
  ``ordered`` ape unit of his platoon within range 2 and sight.
* ``breakthrough`` (Breakthrough, L1878): after a March Move the tank rolls one die; on P it
  makes a free Attack. Policy: it rolls when an Attack from where it stands is worth
  something.
* ``first-double`` (Surprise Strike, L2122): At the Double in the unit's first activation.
* ``implacable`` (Implacable Advance, L2092-2096): a Suppressed unit may Move instead of its
  Nothing action, then Attack (never a March Move nor a Sustained Attack): the suppressed
  plans gain Move + Attack.
* ``camouflage-while``, ``trail-blazer-while``, ``no-tokens-while``: Camouflage (Strike
  Unseen, L2149), Trail Blazer (Tight Quarters, L1794), never Under Fire nor Suppressed
  (Fanatical Loyalty, L1532) as long as the platoon's ``holds`` unit (the hero the text
  names, its command unit) is in play. Decision: the grant lapses at the start of the first
  activation after that unit is destroyed or has left (checked at every activation start);
  a unit whose card has the rule keeps it.
* ``mobile`` (Mobile Warfare, L1401-1405): at the start of each activation the unit rolls one
  die; on P it has Move and Fire for that activation (the roll is free: always taken).
* ``lightning`` (Lightning Strike, L1165-1169): in game turn 1 the unit's infantry save (P,
  L686) succeeds on P and S (the digest's faces, 2/3); a cover save (P or S, L682) and a save
  a weapon removes stay as they are. The kernel widens the save mask of the unit's open-ground
  dice groups for turn 1 (:func:`dustsim.play.battle_kernel._lightning`).
* ``terror`` (Inflect Terror, L1657-1659): while the platoon's ``holds`` unit (Frank von
  Stein) is in play, each close-combat attack of the unit (in an Attack or Sustained Attack)
  steps its target's token up whether or not it hits (none to Under Fire, Under Fire to
  Suppressed, never past Suppressed), and so each unit of the target's side within range 3 of
  the target with line of sight to its square (:func:`dustsim.play.battle_kernel._terror`).
  Decision: the step is for close combat, where L739 gives none, as the digest reads L1659
  (section 9); ranged attacks keep the ordinary rule. Units that never take tokens take
  none.
* ``stay-down-while`` (Night Witches, L2037-2041): the unit's lines whose hits give a token
  step (not close combat, not flame) give Suppression at once (And Stay Down, L3415-3417)
  while the platoon's ``holds`` unit is in play: the kernel switches those lines' dice groups
  (their token mode) at every activation start (``_stay_down``); weapon column
  :data:`W_STAY_DOWN` marks them.
* ``mounted`` / ``rider`` (Mounted Assault, L1766-1770): the walker gets an extra close-combat
  line :data:`MOUNTED_NAME` (1/1 in every column; its improvised weapon kept as a line of its
  own, :func:`with_mounted_lines`) whose carriers are the soldiers of ``rider`` squads aboard
  it, counted at every activation start (kernel ``_mounted``).
* ``knockout`` / ``knocker`` (Knockout, L1191-1195): a platoon unit's close-combat attack
  that hits names its enemy; when that unit's activation ends the policy's knocker (its
  decision in :data:`ADVANTAGES`) activates right after it (the reactivation slot): a March
  Move to the reachable square nearest the enemy, then, beside it, the Charge's close-combat
  attack at it (kernel ``_knockout``); a ``knockout`` special event names it.
* ``escort-lead`` / ``escort`` (Close Cooperation, L1349-1353): when the M7 walker has
  activated, the policy's escort (its decision in :data:`ADVANTAGES`) activates right after
  it (the kernel's reactivation slot, as Get Moving's), its plans restricted to those whose
  first action is a Move or March Move (as an aircraft's, L516); a ``close-cooperation``
  special event names it.
* ``wave`` (Wave Attack, L2063-2065): in turns 1-3 each soldier the squad loses rolls one
  die before the casualties come off, on P it returns (the digest's face, 1/3); a special
  event ``wave-attack`` with ``returned`` (kernel ``_wave``), after the attack, area,
  artillery, Psychic Scream or Execute event that eliminated them (L2065: "each time a
  Soldier is eliminated"). Not rolled: soldiers lost aboard a destroyed transport (L530).
* ``pack`` (Pack Hunters, L1817-1821): the walker's reactive dice succeed on P and S (the
  digest's two faces, as Advanced Reactive Fire's); it may react to a mover beyond its own
  reaction range when another ``pack`` walker of its platoon sees the mover within range 4
  (its own lines still need range and sight; one reaction per trigger, as for any unit;
  :func:`dustsim.play.battle_kernel._pack_sees`).
* Primal Instinct's gorillas (L1564; ``ordered`` units of a platoon whose leader has
  ``ape-order``): a gorilla with Charge and a close-combat line takes no Suppression from the
  reactions its March Move draws (the March is its Charge's first part, L3459): a Suppression
  they would give becomes Under Fire (:func:`calm_charge`, kernel ``_react_march``).
* ``swarm`` (BRAINSSSS!, L1630-1634): a Mindless Zombie unit of the swarm that starts its
  activation within range 3 of a friendly non-Zombie unit makes an Attack action against a
  friendly non-Zombie unit (kernel ``_brains``, policy brains-least-harm: the friend, square
  and line class that harm least, a Move first when needed); the attack names the rule and
  the friend's close-combat retaliation says so.
* ``dig-in`` / ``dig-in-reroll`` (Dig In Girls!, L2197-2201): a Mercenary unit or support
  weapon team of the platoon (``dig-in``) has Defensive Tactics (Damage Resilient in cover,
  L3497) while it stands within range 2 of Tanya (the platoon's ``holds`` unit, alive, on the
  board): its cover dice groups are compiled with Defensive Tactics (:func:`with_dig_in`) and
  the kernel takes the Damage Resilient off an attack's groups when she is not that close
  (``_dig_dr``). Once per game (per platoon) a Mercenary unit other than Tanya's
  (``dig-in-reroll``) within range 2 of her forces a successful Attack roll against it to be
  re-rolled. **Decision** (digest OPEN-11, L2201 "a successful Attack roll"): the roll is the
  attack's to-hit roll, every die of it that succeeded is re-rolled once and counts only if
  it succeeds again (as a Jammer re-rolls a roll's successes, L3567; the dice kernel's
  ``JAMMED``), before chains and saves. Named policy **dig-in-first-hit**: used on the first
  attack (Attack, Sustained Attack, reaction or close combat) against such a unit that rolls
  a success (declared after the roll, L2201: an attack without a success does not spend it);
  not on an attack a Jammer already re-rolls, nor on area, artillery or Psychic Scream
  strikes (a gap). The attack event says so (``dig_in``).
* ``go-girls`` (Go Get 'Em Girls!, L2171-2175): at the start of its activation the unit rolls
  one die, on P or T (the digest's two faces, 2/3) it has Brave for that activation. Policy:
  it rolls when it has a token to remove (Brave's only effect is the removal roll, L741).

Every order follows the officer policy of :mod:`dustsim.play.battle_rules` (an already
activated unit worth more AP than the one ordering, that can strike; a free third action needs
no such threshold). Events: a ``get-moving`` special with ``advantage`` naming it; a
``breakthrough`` special with its die, then the free Attack with rule ``Breakthrough``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numba as nb
import numpy as np

from dustsim.play import battle_rules as BR
from dustsim.play.duel_kernel import _alive
from dustsim.play.duel_layout import H_UNITS, U_IMMUNE, U_REACT_MASK, U_SUPP_DICE

# -- layout (the platoon helper's slots: RB bits 28-35, X cols 20-21, SP 27-31, WHY 10-12) --------
X_PLATOON = 20  # unit facts: 1 + the number of its complete platoon in the battle, 0 none
X_PA_CODE = 21  # unit facts: the advantage code (PA_*) of its orders; HOLDS for the unit a
# platoon's grants last with; WHILE + a mask (WHILE_*) of the grants that last while it is in
# play (lapsed in this game: X_PLATOON negative)
RB_PA_ORDERED = np.int64(1 << 28)  # role ``ordered``
RB_PA_SURE_ORDER = np.int64(1 << 29)  # role ``sure-order`` (Mission Tactics, L1459)
RB_PA_THIRD_ORDER = np.int64(1 << 30)  # role ``third-order`` (Blitzkrieg Tactics, L1431)
# roles ``walker-order`` (Grab Them by the Nose, L1053: anywhere) and ``ape-order`` (Primal
# Instinct, L1566: range 2 and sight): Get Moving for one action, the range by X_PA_CODE
RB_PA_ACTION_ORDER = np.int64(1 << 31)
RB_PA_BREAKTHROUGH = np.int64(1 << 32)  # role ``breakthrough`` (L1878)
RB_PA_FIRST_DOUBLE = np.int64(1 << 33)  # role ``first-double`` (Surprise Strike, L2122)
RB_PA_IMPLACABLE = np.int64(1 << 34)  # role ``implacable`` (Implacable Advance, L2096)
RB_PA_GIRLS = np.int64(1 << 35)  # role ``go-girls`` (Go Get 'Em Girls!, L2175)
# Dig In Girls! (L2201; the rules helper's RB bits 36-37 and X col 19): roles ``dig-in``,
# ``dig-in-reroll``; X_DIG on the platoon's ``holds`` unit (Tanya): 1 once its re-roll is spent
RB_PA_DIG_IN = np.int64(1 << 36)
RB_PA_DIG_REROLL = np.int64(1 << 37)
X_DIG = BR.X_DIG
# BRAINSSSS! (L1630-1634; the rules helper's RB bit 38 and WHY 14): role ``swarm``
RB_PA_SWARM = np.int64(1 << 38)
WHY_BRAINS = np.int64(14)
BRAINS_RANGE = 3  # L1634
DIG_RANGE = 2  # L2201
DIG_LOG = 32768  # an attack row's L_PN bit: Dig In Girls!' re-roll spent on this attack
SP_PA_ORDER = np.int64(27)  # an advantage's Get Moving (log L_TOKEN: PA code + 8 x Desert Fox)
SP_BREAKTHROUGH = np.int64(28)  # Breakthrough's die after a March Move
SP_GIRLS = np.int64(29)  # Go Get 'Em Girls!' die at the start of an activation
SP_MOBILE = np.int64(30)  # Mobile Warfare's die at the start of an activation
WHY_BREAKTHROUGH = np.int64(10)  # the free Attack it gives
# role ``lightning`` (Lightning Strike, L1169; the reserves helper's RB slot 61): in game turn
# 1 its infantry save succeeds on P and S
RB_PA_LIGHTNING = np.int64(1 << 61)
# role ``terror`` (Inflect Terror, L1657-1659; the reserves helper's RB slot 62 and WHY 12: the
# marker of the token events it gives)
RB_PA_TERROR = np.int64(1 << 62)
WHY_TERROR = np.int64(12)
# Primal Instinct's gorillas (L1564): the token event that undoes a Suppression a reaction gave
# during a Charge (the reserves helper's WHY 13)
WHY_CALM = np.int64(13)
# advantage codes of the orders (X_PA_CODE, the log's L_TOKEN % 8)
PA_MISSION, PA_BLITZ, PA_GRAB, PA_APES = 1, 2, 3, 4
PA_MOBILE = 5  # role ``mobile`` (X_PA_CODE: Mobile Warfare's units, no orders in its platoon)
PA_PACK = 6  # role ``pack`` (X_PA_CODE: Pack Hunters' KV-47 walkers, no orders in its platoon)
PA_WAVE = 7  # role ``wave`` (X_PA_CODE: Wave Attack's Red Guards squads, no orders either)
SP_WAVE = np.int64(33)  # Wave Attack's dice for soldiers eliminated (the reserves helper's SP)
# Close Cooperation (L1349-1353): X_PA_CODE of the M7 walkers and of their USMC escorts (exact
# codes above HOLDS: no order code), the special event naming the escort (the reserves SP 34)
PA_COOP, PA_ESCORT = 9, 10
SP_ESCORT = np.int64(34)  # L_TOKEN 0: Close Cooperation's escort, 1: Knockout's unit
# Knockout (L1191-1195): X_PA_CODE of its platoon's units, and of Rhino and the Heavy Ranger
# Assault Squads among them
PA_KNOCK, PA_KNOCKER = 11, 12
# Night Witches (L2037-2041): weapon row column (the reserves helper's weapon col 16), 1 for a
# granted unit's line whose hits give a token step: Suppression at once while the platoon's
# ``holds`` unit (Red Ace in the Red Star) is in play
W_STAY_DOWN = 16
# Mounted Assault (L1766-1770): the same weapon column, MOUNTED_LINE on the walker's added line
# (one 1/1 die per soldier it carries from its platoon's grenadier squads: its carriers, set
# at every activation start); the line's name on the board and in the event log
MOUNTED_LINE = 2
MOUNTED_NAME = "Mounted Assault (L1770)"
PA_MOUNTED, PA_RIDER = 13, 14
WAVE_TURNS = 3  # the first three turns (L2065)
HOLDS, WHILE = 8, 16
WHILE_CAMO, WHILE_TRAIL, WHILE_IMMUNE = 1, 2, 4
GIRLS_DICE = 3  # Brave's removal dice (unit_rules.removal_dice)
PA_NAMES = {PA_MISSION: "Mission Tactics", PA_BLITZ: "Blitzkrieg Tactics",
            PA_GRAB: "Grab Them by the Nose", PA_APES: "Primal Instinct"}
#: the advantage special events' names (play.battle event log)
SPECIALS = {int(SP_PA_ORDER): "get-moving", int(SP_BREAKTHROUGH): "breakthrough",
            int(SP_GIRLS): "go-get-em-girls", int(SP_MOBILE): "mobile-warfare",
            int(SP_WAVE): "wave-attack", int(SP_ESCORT): "close-cooperation"}
#: why an attack was taken (event ``rule`` and text)
WHY = {int(WHY_BREAKTHROUGH): "Breakthrough: a free Attack after its March Move on its die "
       "(platoon advantage, L1874-1878)",
       int(WHY_BRAINS): "BRAINSSSS!: a Mindless Zombie unit of the swarm that starts its "
       "activation within range 3 of a friendly non-Zombie unit attacks one (platoon "
       "advantage, L1630-1634; policy brains-least-harm)"}


@dataclass(frozen=True)
class Grant:
    """A complete platoon's advantage as a list hands it to a battle: its name and lines, the
    platoon (``"<list>: platoon '<id>' (<chart>)"``), and ``roles``: (unit index in the list,
    role) for each unit the text names (:data:`ROLES`)."""

    advantage: str
    lines: str
    platoon: str
    roles: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True)
class AdvantageRule:
    """What grid battles play of one advantage: ``status`` (``played``, ``partly played``,
    ``not played``), ``played`` (what, by roles), ``why_not`` (the part left out and why),
    ``decision`` (a part the seeds leave open, what was decided, with the lines read)."""

    name: str
    lines: str
    status: str
    played: str = ""
    why_not: str = ""
    decision: str = ""


#: role -> what it does in the kernel (module docstring)
ROLES = {
    "scout": "gains Scout (L3639-3641)", "airborne": "gains Airborne (L3391-3393)",
    "charge": "gains Charge (L3459-3461)", "brave": "three token removal dice (Brave, L741)",
    "no-tokens": "never Under Fire nor Suppressed", "vigilant": "reactive dice on P and S",
    "ordered": "may be ordered by its platoon's advantage",
    "sure-order": "its Get Moving on its platoon's ordered units succeeds on P or T",
    "third-order": "a third action each activation: Get Moving on its platoon's ordered units",
    "walker-order": "Get Moving (one action) on its platoon's ordered walkers, anywhere",
    "ape-order": "Get Moving (one action) on its platoon's ordered apes in range 2 and sight",
    "breakthrough": "a die after a March Move: on P a free Attack",
    "first-double": "At the Double in its first activation",
    "implacable": "Suppressed: Move instead of Nothing, then an Attack",
    "go-girls": "a die at activation: on P or T Brave for that activation",
    "mobile": "a die at activation: on P Move and Fire for that activation",
    "camouflage-while": "Camouflage while its platoon's hero is in play",
    "trail-blazer-while": "Trail Blazer while its platoon's hero is in play",
    "no-tokens-while": "never Under Fire nor Suppressed while its platoon's hero is in play",
    "holds": "the hero its platoon's lasting grants depend on",
    "lightning": "in game turn 1 its infantry saves succeed on P and S",
    "wave": "in turns 1-3 a die per soldier eliminated: on P the soldier returns",
    "stay-down-while": "And Stay Down (its ranged hits give Suppression) while its platoon's "
                       "hero is in play",
    "mounted": "in close combat one extra 1/1 attack per soldier of its platoon's grenadier "
               "squads aboard",
    "rider": "its soldiers aboard its platoon's SPzL VI walker add close-combat dice to it",
    "knockout": "its successful close-combat attack calls a knocker of its platoon within "
                "range 6 of the enemy",
    "knocker": "called by Knockout: activates right after, a March Move towards the enemy "
               "and a Charge at it",
    "escort-lead": "when it activates, a USMC escort of its platoon within range 2 activates "
                   "right after it",
    "escort": "may activate right after its platoon's M7 walker, a Move or March Move first",
    "pack": "reactive dice on P and S; it may react beyond its reaction range when a walker of "
            "its pack sees the mover within range 4",
    "terror": "while its platoon's hero is in play, its close-combat attacks give their "
              "target and the target's friends within range 3 in sight of it a token step",
    "swarm": "starting its activation within range 3 of a friendly non-Zombie unit, it "
             "attacks one",
    "dig-in": "Defensive Tactics while within range 2 of its platoon's hero",
    "dig-in-reroll": "once per game (its platoon's), within range 2 of its platoon's hero, "
                     "an attack's successful to-hit dice against it are re-rolled",
}
_WHILE_ROLES = {"camouflage-while": (WHILE_CAMO, BR.RB_CAMOUFLAGE),
                "trail-blazer-while": (WHILE_TRAIL, BR.RB_TRAIL_BLAZER),
                "no-tokens-while": (WHILE_IMMUNE, 0)}
_BITS = {"scout": BR.RB_SCOUT, "airborne": BR.RB_AIRBORNE, "charge": BR.RB_CHARGE,
         "ordered": RB_PA_ORDERED, "sure-order": RB_PA_SURE_ORDER,
         "third-order": RB_PA_THIRD_ORDER, "walker-order": RB_PA_ACTION_ORDER,
         "ape-order": RB_PA_ACTION_ORDER, "breakthrough": RB_PA_BREAKTHROUGH,
         "first-double": RB_PA_FIRST_DOUBLE, "implacable": RB_PA_IMPLACABLE,
         "go-girls": RB_PA_GIRLS, "lightning": RB_PA_LIGHTNING, "terror": RB_PA_TERROR,
         "dig-in": RB_PA_DIG_IN, "dig-in-reroll": RB_PA_DIG_REROLL, "swarm": RB_PA_SWARM}
_CODES = {"sure-order": PA_MISSION, "third-order": PA_BLITZ, "walker-order": PA_GRAB,
          "ape-order": PA_APES, "mobile": PA_MOBILE, "pack": PA_PACK, "wave": PA_WAVE,
          "escort-lead": PA_COOP, "escort": PA_ESCORT, "knockout": PA_KNOCK,
          "knocker": PA_KNOCKER, "mounted": PA_MOUNTED, "rider": PA_RIDER}

# the arrival die of two advantages (L1139, L1169): 1947's Reserve (L3100-3104) has no
# arrival roll (battle_reserve: decisions)
_NO_ROLL = ("the extra die for a unit arriving from Reserve: the Reserve rule has no arrival "
            "roll, a unit in Reserve comes on when activated in a later turn (L3104; digest "
            "OPEN-23), so the die has no roll to join and changes nothing")
_WHILE = "And Stay Down is compiled into the attack groups, not a flag a grant can set"


def _r(name, lines, status, played="", why_not="", decision=""):
    return name, AdvantageRule(name, lines, status, played, why_not, decision)


#: the one table: every advantage of the 30 charts, what battles play of it
ADVANTAGES = dict((
    _r("Rangers Lead the Way", "L1135-1139", "played",
       "Ranger (not Heavy Ranger) units gain Scout", decision=_NO_ROLL),
    _r("Grab Them by the Nose", "L1049-1053", "played",
       "an M3 walker's Get Moving on another M3 walker of the platoon, anywhere"),
    _r("Lightning Strike", "L1165-1169", "played",
       "Heavy Ranger units' infantry saves succeed on P and S in game turn 1 (the digest's two "
       "faces, 2/3)", decision=_NO_ROLL),
    _r("Knockout", "L1191-1195", "played",
       "after a platoon unit's close-combat attack hits an enemy, Rhino or a Heavy Ranger "
       "Assault Squad within range 6 of it activates right after: a March Move towards it, "
       "then a Charge at it when it ends beside it",
       decision="successful: at least one hit; the enemy still in play when the attacker's "
       "activation ends; policy (the player may select): the knocker worth most AP that has "
       "not activated this turn (one activation a turn, L341), with Charge and a close-combat "
       "line, no token and not Stunned (a Suppressed unit's first action is Nothing, L745); "
       "towards: the reachable square nearest the enemy, the cheapest of those; one call per "
       "activation of the unit itself (a unit activated again by an order, an escort or a "
       "knocker calls none)"),
    _r("Air Drop", "L1217-1219", "played", "Heavy Commando units gain Airborne (a unit back "
       "from Reserve drops again, L3393)"),
    _r("Seek, Strike, Destroy", "L1245-1251", "not played", "",
       "the Move Stimulants token is defined nowhere in the seeds (digest OPEN-25)",
       decision="not played: L1251 names a Move Stimulants token no rule of the seeds "
       "defines (Inject Stimulants' token, L3749-3757, is for infantry, with its own roll; "
       "digest OPEN-25); no effect is invented for it"),
    _r("Semper Fi", "L1321-1325", "played",
       "USMC units and open-topped M3 walkers gain Brave (three removal dice)"),
    _r("Close Cooperation", "L1349-1353", "played",
       "when an M7 walker activates, a USMC unit of its platoon that has not activated, within "
       "range 2, activates right after it, its first action a Move or March Move",
       decision="policy (the player may select): the escort worth most AP among those that "
       "can obey the first-action rule: on the board (a passenger's activation is its "
       "vehicle's business, L528; the M7s carry none in the bundled cards), no token and not "
       "Stunned (a Suppressed unit's first action is Nothing, L745), no special action that "
       "would come first (officer, medic, mechanic, Follow Me, Execute, Air Alert)"),
    _r("Unflappable", "L1375-1381", "played",
       "USMC units and M1 walkers gain Brave; units that already had Brave take no tokens"),
    _r("Mobile Warfare", "L1401-1405", "played",
       "PzKL II, IV-D and SPzL VI walkers and Sturmgrenadier Recon Squads roll at activation: "
       "on P Move and Fire"),
    _r("Blitzkrieg Tactics", "L1427-1431, L1692-1696", "played",
       "the platoon leader's Get Moving on its grenadier units as a third action"),
    _r("Mission Tactics", "L1455-1459", "played",
       "the platoon leader's Get Moving on its Heavy Grenadier units succeeds on P or T"),
    _r("Fanatical Loyalty", "L1528-1532", "played",
       "while Sigrid is in play, Laser and Heavy Laser Grenadiers take no tokens"),
    _r("Primal Instinct", "L1554-1566", "played",
       "Markus' Get Moving on his apes; a gorilla's March Move before its Charge takes no "
       "Suppression from the reactions it draws (Under Fire at most)",
       decision="a March Move of a gorilla of the platoon that has Charge and a close-combat "
       "line counts as its Charge action (the March is the Charge's first part, L3459), "
       "whether or not it ends beside an enemy: the reaction comes before that is known "
       "(L811); a Suppression the reactions would give becomes Under Fire (L1564)"),
    _r("BRAINSSSS!", "L1630-1634", "played",
       "Mindless Zombie units gain Charge; one that starts its activation within range 3 of a "
       "friendly non-Zombie unit makes an Attack action against one (policy "
       "brains-least-harm: the friend it harms least, from where it stands or after a Move)",
       decision="the forced activation is that Move + Attack (or that Attack alone); when no "
       "friend can be attacked (out of reach, or no line hurts one) the activation goes on as "
       "usual: L1634 names no other duty; the friend retaliates in close combat (L763-765)"),
    _r("Inflect Terror", "L1657-1659", "played",
       "while Frank von Stein is in play, a Zombie unit's close-combat attack gives its target "
       "a token step whether or not it hits, and each unit of the target's side within range "
       "3 that sees the target one (decision: close combat, as the digest reads L1659)"),
    _r("Mounted Assault", "L1766-1770", "played",
       "an SPzL VI walker fights in close combat (its attacks and retaliation) with one extra "
       "1/1 die per soldier of the platoon's NDAK Grenadier or Heavy Grenadier squads aboard",
       decision="the soldiers counted are those of the platoon's own grenadier squads aboard "
       "when an activation starts (passengers change only at activations, L528); the extra "
       "line adds to the walker's improvised weapon (L767) rather than replacing it"),
    _r("Tight Quarters", "L1790-1794", "played",
       "NDAK units gain Scout, and Trail Blazer while Christoph is in play"),
    _r("Pack Hunters", "L1817-1821", "played",
       "KV-47 walkers' reactive dice succeed on P and S; one of them may react beyond its "
       "reaction range when another KV-47 of the platoon sees the mover within range 4",
       decision="the reacting walker still fires only what reaches the mover in its own line "
       "of sight (an attack's rule, L602), and one unit reacts per trigger as for any reaction "
       "(the kernel's; the text's one KV-47 per trigger, L1821); the KV-47 series are the "
       "Nadya, Natasha, Natalya, Koshka and Aleksei walkers (the chart's slots are lost; "
       "digest section 4)"),
    _r("Airborne Assault", "L1844-1850", "played",
       "KV-47A/B/C walkers drop as Airborne units do (the same text, L3391-3393; again when "
       "back from Reserve)"),
    _r("Breakthrough", "L1874-1878", "played",
       "IS-5/IS-48 tanks roll a die after a March Move: on P a free Attack"),
    _r("Vigilant", "L1943-1949", "played",
       "reactive dice succeed on P and S; the list defends where roles are drawn"),
    _r("Night Witches", "L2037-2041", "played",
       "while Red Ace flies the Red Star, she and the platoon's two required aircraft have And "
       "Stay Down: their ranged hits give Suppression at once (L3415-3417)",
       decision="Red Ace pilots the Red Star (the chart joins them): her And Stay Down is the "
       "Red Star's lines'; in play: the Red Star not destroyed and on the board or in Reserve "
       "waiting (checked at every activation start and as the game starts)"),
    _r("Wave Attack", "L2063-2065", "partly played",
       "in turns 1-3 each soldier a Red Guards squad loses to an Attack, a Sustained Attack, "
       "a reaction, close combat (retaliation included), an area or artillery strike, a "
       "Psychic Scream or an Execute rolls a die: on P it returns",
       "soldiers eliminated aboard a transport destroyed (L530) are not rolled for (the "
       "passengers' roll places its losses unit by unit without a result row)",
       decision="the dice are rolled as the casualties come off, before they are removed: a "
       "soldier who returns was never taken off, so a squad whose every soldier falls but one "
       "returns is not destroyed (the face: P, the digest's 1/3)"),
    _r("Implacable Advance", "L2092-2096", "played",
       "Suppressed Steel Guard squads may Move instead of Nothing, then Attack"),
    _r("Surprise Strike", "L2118-2122", "played",
       "Spetsnaz units and KV-47 (TSh) walkers gain At the Double in their first activation "
       "and in the activation they arrive from Reserve (battle_reserve)"),
    _r("Strike Unseen", "L2145-2149", "played",
       "while Roza is in play, Spetsnaz infantry gain Camouflage"),
    _r("Go Get 'Em Girls!", "L2171-2175", "played",
       "Mercenary units roll at activation: on P or T Brave for that activation"),
    _r("Dig In Girls!", "L2197-2201", "played",
       "Mercenary units and support weapon teams of the platoon within range 2 of Tanya have "
       "Defensive Tactics; once per game a Mercenary unit within range 2 of her (not hers) "
       "has an attack's successful to-hit dice against it re-rolled (policy "
       "dig-in-first-hit: the first attack with a success)",
       decision="a successful Attack roll (L2201; digest OPEN-11) is the attack's to-hit roll: "
       "each die that succeeded is re-rolled once and counts only if it succeeds again (as a "
       "Jammer's re-roll, L3567), before chains and saves; area, artillery and Psychic Scream "
       "strikes do not offer it"),
))


def status(advantage: str) -> AdvantageRule | None:
    """What battles play of ``advantage`` (None: no such advantage; the charts without one)."""
    return ADVANTAGES.get(advantage)


def notes(grants: Sequence[Grant]) -> tuple[str, ...]:
    """A battle's notes on the advantages its lists earned: each one not played, or played in
    part, with why (one phrase)."""
    out = []
    for g in grants:
        r = ADVANTAGES.get(g.advantage)
        if r is None or r.status == "played":
            continue
        what = "not played" if r.status == "not played" else "partly played"
        out.append(f"platoon advantage {what} in battles: {g.platoon}: {g.advantage} "
                   f"({r.lines}): {r.why_not}")
    return tuple(out)


def fill_advantage_facts(m: np.ndarray, grants_by_unit: Sequence[Sequence[tuple[int, str, str]]]
                         ) -> None:
    """Write each unit's advantage roles into the kernel matrix: ``grants_by_unit[u]`` holds
    (platoon number, advantage, role) for unit u (:data:`ROLES`)."""
    from dustsim.rules.dice import PS

    x0 = int(m[0, BR.H_XU])
    ru = int(m[0, H_UNITS])
    for u, roles in enumerate(grants_by_unit):
        for num, _adv, role in roles:
            if role not in ROLES:
                raise ValueError(f"unknown platoon advantage role {role!r}")
            m[x0 + u, X_PLATOON] = num
            if role in _BITS:
                m[x0 + u, BR.X_RULES] |= int(_BITS[role])
            if role in _CODES:
                m[x0 + u, X_PA_CODE] = _CODES[role]
            if role == "brave":
                m[ru + u, U_SUPP_DICE] = max(int(m[ru + u, U_SUPP_DICE]), 3)
            elif role == "no-tokens":
                m[ru + u, U_IMMUNE] = 1
            elif role in ("vigilant", "pack"):
                m[ru + u, U_REACT_MASK] |= PS.mask
            elif role == "holds":
                m[x0 + u, X_PA_CODE] = HOLDS
            elif role == "stay-down-while":
                _mark_stay_down(m, u)
            elif role in _WHILE_ROLES:
                mask, bit = _WHILE_ROLES[role]
                had = (bit and m[x0 + u, BR.X_RULES] & int(bit)) or (
                    not bit and m[ru + u, U_IMMUNE])
                if not had and m[x0 + u, X_PA_CODE] != HOLDS:  # its card's own rule stays
                    m[x0 + u, X_PA_CODE] = WHILE | (int(m[x0 + u, X_PA_CODE]) & 7) | mask
                    if bit:  # in force from the start (reset_while gives it each game)
                        m[x0 + u, BR.X_RULES] |= int(bit)
                    else:
                        m[ru + u, U_IMMUNE] = 1


def with_mounted_lines(units: Sequence, grants: Sequence[Grant]) -> list:
    """The side's units with Mounted Assault's extra line on each ``mounted`` walker (and its
    improvised close-combat weapon as a card line, so the extra line does not replace it)."""
    from dataclasses import replace

    from dustsim.data.cards import COLUMNS, Weapon, parse_cell
    from dustsim.rules.unit_rules import improvised_weapons

    out = list(units)
    for i in _with_role(grants, "mounted", len(out)):
        du = out[i]
        own = tuple(w for w, carrier, _h in improvised_weapons(du.card, du.hero)
                    if carrier is du.card)
        line = Weapon(name=MOUNTED_NAME, line=tuple(parse_cell("1/1") for _ in COLUMNS),
                      count=1, range="C", keywords=(), ammo=None)
        out[i] = replace(du, card=replace(du.card, weapons=du.card.weapons + own + (line,)))
    return out


def _with_role(grants: Sequence[Grant], role: str, n: int) -> list[int]:
    """The side's unit indices (0..n-1) that a grant gives ``role``, in grant order."""
    return [i for g in grants for i, r in g.roles if r == role and 0 <= i < n]


def with_dig_in(units: Sequence, grants: Sequence[Grant]) -> list:
    """The side's units with Defensive Tactics on each ``dig-in`` unit's card (Dig In Girls!,
    L2201): only for the battle compiler's cover groups (Defensive Tactics acts in cover,
    L3497); the kernel switches it off while Tanya is not within range 2."""
    from dataclasses import replace

    out = list(units)
    for i in _with_role(grants, "dig-in", len(out)):
        du = out[i]
        if any(str(x).lower().startswith("defensive tactics") for x in du.card.skills):
            continue
        out[i] = replace(du, card=replace(du.card, skills=(*du.card.skills,
                                                           "Defensive Tactics")))
    return out


def _mark_stay_down(m: np.ndarray, u: int) -> None:
    """Night Witches: mark unit u's lines whose dice groups give a token step (``G_SUPP`` low
    bits 1: not close combat, not flame) in :data:`W_STAY_DOWN`."""
    from dustsim.engines.kernel import G_SUPP
    from dustsim.play.duel_layout import H_GROUPS, H_U, H_W, H_WPN, U_W0, U_W1

    ru = int(m[0, H_UNITS]) + u
    wg = max(int(m[0, H_W]), 1)
    n_u = int(m[0, H_U])
    rg = int(m[0, H_GROUPS])
    for w in range(int(m[ru, U_W0]), int(m[ru, U_W1])):
        rows = [rg + i * wg + w for i in range(n_u * 4)]
        if any(int(m[r, G_SUPP]) & 3 == 1 for r in rows):
            m[int(m[0, H_WPN]) + w, W_STAY_DOWN] = 1


@nb.njit(nogil=True, cache=True, _nrt=False)
def _grant_while(m, u, on):
    """Give (``on``) or take unit u's lasting grants (X_PA_CODE's WHILE mask)."""
    x = m[0, BR.H_XU] + u
    mask = m[x, X_PA_CODE] & 7
    for bit_mask, bit in ((WHILE_CAMO, BR.RB_CAMOUFLAGE), (WHILE_TRAIL, BR.RB_TRAIL_BLAZER)):
        if (mask & bit_mask) != 0:
            if on:
                m[x, BR.X_RULES] |= bit
            else:
                m[x, BR.X_RULES] &= ~bit
                if bit == BR.RB_CAMOUFLAGE:
                    m[x, BR.ST_CAMO] = 0
    if (mask & WHILE_IMMUNE) != 0:
        m[m[0, H_UNITS] + u, U_IMMUNE] = 1 if on else 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def reset_while(m):
    """Start of a game: every lasting grant in force (camouflaged from the start, L3457)."""
    x0 = m[0, BR.H_XU]
    for u in range(m[0, 0]):
        if m[x0 + u, X_PA_CODE] >= WHILE:
            if m[x0 + u, X_PLATOON] < 0:
                m[x0 + u, X_PLATOON] = -m[x0 + u, X_PLATOON]
            _grant_while(m, u, True)
            if (m[x0 + u, X_PA_CODE] & WHILE_CAMO) != 0:
                m[x0 + u, BR.ST_CAMO] = 1


@nb.njit(nogil=True, cache=True, _nrt=False)
def lapse_while(m):
    """The lasting grants of every unit whose platoon's ``holds`` unit is no longer in play
    (destroyed) lapse for the rest of the game."""
    x0 = m[0, BR.H_XU]
    U = m[0, 0]
    for u in range(U):
        if m[x0 + u, X_PA_CODE] < WHILE or m[x0 + u, X_PLATOON] <= 0:
            continue
        held = False
        for h in range(U):
            if m[x0 + h, X_PA_CODE] == HOLDS and m[x0 + h, X_PLATOON] == m[x0 + u, X_PLATOON] \
                    and _alive(m, h):
                held = True
        if not held:
            _grant_while(m, u, False)
            m[x0 + u, X_PLATOON] = -m[x0 + u, X_PLATOON]


@nb.njit(nogil=True, cache=True, _nrt=False)
def same_platoon(m, u, t):
    """u and t belong to the same complete platoon."""
    x = m[0, BR.H_XU]
    return m[x + u, X_PLATOON] > 0 and m[x + u, X_PLATOON] == m[x + t, X_PLATOON]


@nb.njit(nogil=True, cache=True, _nrt=False)
def calm_charge(m, u):
    """u is a gorilla of a Primal Instinct platoon (an ``ordered`` unit whose platoon's leader
    has ``ape-order``): no Suppression during its Charge (L1564)."""
    x = m[0, BR.H_XU]
    if (m[x + u, BR.X_RULES] & RB_PA_ORDERED) == 0 or m[x + u, X_PLATOON] <= 0:
        return False
    for h in range(m[0, 0]):
        if h != u and same_platoon(m, u, h) and (m[x + h, X_PA_CODE] & 7) == PA_APES and \
                m[x + h, X_PA_CODE] < HOLDS:
            return True
    return False


@nb.njit(nogil=True, cache=True, _nrt=False)
def order_faces(m, u, t, p_mask, t_mask):
    """The faces on which u's Get Moving on t succeeds: P (L3725), or P and T under Mission
    Tactics (L1459) for an ``ordered`` unit of u's platoon; and the advantage code acting
    (0 none)."""
    x = m[0, BR.H_XU]
    if (m[x + u, BR.X_RULES] & RB_PA_SURE_ORDER) != 0 and \
            (m[x + t, BR.X_RULES] & RB_PA_ORDERED) != 0 and same_platoon(m, u, t):
        return p_mask | t_mask, PA_MISSION
    return p_mask, 0


from dustsim.engines.jit import one_version_per_type  # noqa: E402

one_version_per_type(globals())
