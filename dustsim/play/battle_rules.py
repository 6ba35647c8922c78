"""Board-dependent unit rules for the battle kernel (issue 23): tempo, concealment, reaction
and terrain movement, as small Numba helpers the kernel (:mod:`dustsim.play.battle_kernel`)
calls from short hooks, and :func:`fill_rule_facts`, which writes each unit's flags
(:class:`dustsim.rules.unit_rules.UnitRules`, where each rule's meaning and lines live) into
the kernel's unit-facts block.

What the hooks play (seed 003 lines; the decisions are ours and named):

* **Scout** (L3639-3641): a unit's first action of the game may be a March Move that counts
  as one action; the second action is an Attack from where it ends, else a Move.
* **Charge** (L3459-3461): a free close-combat Attack right after a March Move.
* **Move and Fire** (L3603-3605): a free Move right before or after a ranged Sustained
  Attack, or a free ranged Attack right after a March Move (the "before" of the March is not
  offered: the policy attacks from where it ends).
* **At the Double** (L3431-3433): a free Move right after a March Move. Decision: one free
  action follows a March (a free Attack when one is worth something, else the free Move);
  the free actions draw no second reaction (the March already triggered one, L797-811).
* **First Strike** (L3523-3525): the unit's close-combat attack (or retaliation) resolves and
  removes casualties before the enemy's; both sides with it: ignored. A joined hero's own
  First Strike (not shared, L3525; ``SN_FIRST`` on his close-combat lines): his lines resolve
  and remove casualties first, the squad's strike together with the enemy (:func:`hero_first`,
  the kernel's ``_hero_first``); a hero's First Strike counts as his unit's when both sides
  have one (both ignore it: our reading).
* **Camouflage / Improved Camouflage** (L3453-3457): starts the game camouflaged; cannot be
  attacked (nor reacted to) from range 3 or more; ends when the unit takes an action other
  than Move or Nothing (a March Move is another action); the Camouflage special action hides
  it again (the policy takes it instead of a Nothing, or after a Move instead of a March to a
  square a Move reaches). Improved Camouflage's ENLIST text is in no seed: played as
  Camouflage.
* **Smoke Launchers** (L3651-3653, smoke L3226-3230): once per game a free smoke screen on
  the vehicle's square and three adjacent squares forming a 2x2, towards the enemy that
  threatens it most; it lasts to the end of the next turn, blocks sight through it (as trees,
  L614-616) and gives cover inside (L680; digest §19 q18: L614 taken as an erratum).
  Decision: aircraft see over smoke as over trees (L655). Policy: launched at the end of the
  activation when an enemy can reach the vehicle's square next.
* **Advanced Reactive Fire** (L3371-3373): reaction range 6, reactive dice succeed on P and S
  (the digest's reading of "counting shield and bloc", §2.3).
* **Trail Blazer** (L3693-3695): moves through enemy units (never ends on one).
* **Flying** (jetpacks, L3527-3529, the board's JUMP class): passes over any terrain as open
  ground, ends only where it could stand (the FOOT column of ``move_cost``).
* **Airborne** (L3391-3393): not deployed; on turn 1 it drops on the free square the policy
  scores best (its square score plus 2/3 of what it could fire from there, the chance of its
  second action), not within range 2 of an objective; first action Nothing, a second action
  (an Attack when worth something, else a Move) on P or T (2/3, the digest's reading); it
  neither captures nor contests on that turn.
* **Wire-guided** (L3343-3345): an Attack action (not a Sustained Attack, not a reaction) in
  which the unit fires one wire-guided weapon and no other re-rolls that weapon's misses as a
  Sustained Attack does (L793). "One weapon": a line with one carrier left. Policy: at the
  moment of an Attack action the line is fired alone when its value on its target times the
  re-roll's gain (2 - p, p its chance to hit: expected hits p -> p(2 - p)) exceeds the value
  of every line fired together; the plans score an Attack at the larger of the two. The event
  names the rule. A reactive Attack fires every line (not offered: a gap).
* **Artillery Observer** (L3419-3425, artillery L3218-3224): when the observer takes an Attack
  or a Sustained Attack it may instead have a friendly unit that has not activated this turn
  fire its artillery lines: that unit activates (its token removal roll, L741; Suppressed, it
  makes a plain Attack, L745), fires an Attack or Sustained Attack (as the observer's) at
  targets in its own range (L3423: "Field of Fire and Range as normal"; in its fire arcs:
  play.battle.ARCS) seen from the observer's square (sight and cover from there; artillery
  fires over terrain, L3220, so the artillery unit's own sight does not matter); a Reload
  weapon reloads before a plain Attack if empty, else after it (L3425). Decisions: the
  artillery unit's activation is that attack (and the Reload) and nothing else ("finishes its
  Activation", L3425); the target is a unit; the 2 x 2 Artillery Area around it is struck as for
  any artillery attack (the battle kernel's ``_area``, L3218-3224); a Large or Huge target is
  aimed at by its anchor square. Policy: an observer on the board activates before the friendly
  artillery it may call in; it calls in the artillery whose lines are worth most through its sight
  when that is worth more than its own lines (scored from where it stands: the plans count it for
  an attack from its square, and it is weighed again after a Move). The observer's ``special``
  event names the artillery unit; the artillery's attacks name the observer (``observer``).
* **Makeshift Repair** (Mechanic L3587-3589, Mechanic Crew; L3759-3765): a special action, one
  of the activation's actions: a friendly ground vehicle (not the mechanic itself, L3589)
  within range 1 and line of sight rolls five dice, each P returning one damage point, never
  above its track (the digest's P; a destroyed vehicle is gone). Policy: taken first, after
  the token removal roll, when such a vehicle has lost a damage point (the one that has lost
  most); the activation goes on with its one action left (Attack or Move). Decision: an
  aircraft is not repaired (the text says Vehicle). Critical hits are not played.
* **Spy** (L3655-3657): a Spy hero is not deployed; each time it activates off the table it
  rolls two dice (the policy always rolls); with no P it takes a Nothing action (L3657);
  with one P or two it is placed on the free square within range 1 of an enemy unit that the
  policy scores best (its square score plus what it could fire from there) and takes one
  action per P: one P, an Attack when worth something, else a Move; two P, a Sustained
  Attack when worth something, else a Move (drawing a reaction, L797) and an Attack.
  Decision: the Spy's dice are the activation's first roll; it has no token to remove off the
  table. A Spy is never a joined hero (L3657, a list rule).
* **Officers** (Officer, Command Squad, Command Vehicle, General; L3707-3731): after its token
  removal roll a unit with an officer may Rally, then order Get Moving You Bunch of Monkeys,
  each a special action costing one action (a General's first each activation is free,
  L3537). Rally: every friendly
  unit still to activate this turn that is Suppressed or Stunned within range 2 and line of
  sight, or, with a radio, the one with most AP anywhere; two dice each (three with Red
  Banner, L3629), P: two remove every token, one steps Suppression down to Under Fire (the
  engagement kernel's reading). Get Moving: one die, P; the friendly ground unit already
  activated this turn, not yet reactivated, within range 2 and sight (anywhere with a radio),
  that can strike (an enemy within its longest range and Move) and is worth more AP than the
  officer is reactivated at once and the officer's activation ends (L3725-3727). Policy: Rally
  when such a unit exists, Get Moving when such a unit exists (the line engine's
  ``orders=get-moving``). A radio: a Command Squad or Vehicle, any vehicle, an officer of
  infantry armour 3-4 (``unit_rules.radio``).
* **Desert Fox** (L3499-3501): the unit its Get Moving reactivates gains At the Double for that
  activation.
* **Red Banner** (L3627-3629): three dice per unit it Rallies.
* **Command Vehicle** (L3473-3475): the vehicle is an officer with a radio
  (``unit_rules.officer``, ``radio``); the dice of its command actions that fail are re-rolled
  once (a Jammer re-rolls the successes of each attempt, L3567). Not played: the Command
  Squad, Medic or Mechanic mounted in it (passengers are not played on the grid).
* **Get Up, It Ain't That Bad** (Medic, Combat Medic; L3739-3743): a special action, one of the
  activation's actions: one die on P or T (the digest's two faces); a friendly infantry unit
  within range 1 and sight, the medic's own unit included, gets one eliminated soldier back
  (a squad) or one damage point (a hero or support weapon). Combat Medic's own text is in no
  seed: read as a unit with a Medic.
* **Inject Stimulants** (Medic, Combat Medic; L3745-3757): a special action, one of the
  activation's actions: a friendly infantry unit within range 1 and sight gets a Stimulants
  token (:data:`X_STIM`); when that unit next activates (its ``activate`` event: the token
  roll comes after its token removal roll, L741) it removes the token and rolls one die
  (:func:`stim_effect`): one face lets the player choose either effect, one treats an Attack
  action as a Sustained Attack, one treats a Move action as a March Move; either way the unit
  takes three actions, never more (L3757). **Decision on the lost faces** (L3753-3755 print
  three bullets "On a [glyph]" whose glyphs were lost): the digest resolves them as "each face
  -> one outcome, 1/3 each" (dust-1947.md §3, confidence H, as it resolves Get Up's "[glyph]
  or [glyph]" at L3741 to two faces and Rally's lost glyph at L3731 to P); which face carries
  which outcome is lost, so we take the bullets in the digest's face order: **P chooses, T
  Attack -> Sustained Attack, S Move -> March Move** (the probabilities do not depend on the
  pairing; scripted dice do). Further decisions: the medic's own unit is not a target (L3743
  lets Get Up treat itself; L3749 says no such thing); a Zombie is not a target (L3703); the
  token is rolled at the unit's own activation, a reactive attack (L805-809) leaves it for the
  next; a unit that already takes three actions (an Ace's third action, L3557) gains nothing
  (L3757: never more than three); a grappled unit rolls and gains nothing. What the effect
  does (:func:`stim_plan`): Move + Attack becomes Move + Sustained Attack (Attack ->
  Sustained); a March Move is followed by an Attack (Move -> March: the unit's March is its
  treated Move, then its Attack); a unit left one action (Suppressed, Stunned, or after a
  special action) makes a Sustained Attack instead of its Attack; "choose" takes whichever
  fits the plan; a Sustained Attack where it stands is followed by a Move to the square the
  policy scores best (Attack -> Sustained: the Sustained Attack is one action, then a Move).
  Attack + Move and Reload + Attack gain nothing (a gap of the kernel's plans). The plans score the
  effect rolled (a Move + Sustained Attack at the Sustained Attack's weight, a March Move +
  Attack at the Attack from the March's square). Named policy **stim-strikers**: the medic
  injects first, after Get Up, It Ain't That Bad if that one was not taken, the friendly
  infantry unit within range 1 and sight, without a token, not grappled, that has an enemy
  within its longest range plus its Move and is worth more AP than the medic's own unit (the
  one worth most, one still to activate this turn first): one action of the medic's unit for
  one of a unit worth more. The medic keeps its place in the activation order (most AP
  first): a unit that has activated already uses its token at its next activation (L3751),
  so injecting costs no tempo (measured: ordering the medic before its target lost games,
  IJN v Mercenaries 101: the mercenaries' share 0.34 -> 0.27 over 600 games).
  Events: ``stimulants`` (the medic's action, ``target``), ``stimulant-roll``
  (the unit's die, ``effect``), and the upgraded attack's ``rule`` "Inject Stimulants".
* **Medevac** (L3591-3593): a Medevac vehicle's special action: a friendly squad within
  range 1 rolls one die per eliminated soldier, each P returns one. Policy (both): taken
  first, after the token removal roll, when such a unit has lost soldiers or damage (the one
  that lost most); the activation goes on with its one action left. Zombies are not healed
  (L3703).
* **Air Alert** (L3375-3377): a vehicle's special action, one of the activation's actions: an
  enemy aircraft in its line of sight; one die on P (the digest's one face); on a success its
  side's vehicles attacking that aircraft hit on P and T for the rest of the turn (their
  Attack groups upgraded for the roll and restored). Policy: taken first when an enemy
  aircraft in sight can be hurt by a friendly vehicle still to act this turn (itself
  included), on the one worth most AP.
* **Mindless Zombies, Blutkreuz, Resurrection** (L3599-3601, L3445-3447, L3631-3633): a Mindless
  Zombie unit contests objectives (an enemy holds none it stands on) but never holds one; a
  Mindless Zombie unit within range 1 of a friendly Blutkreuz (not the unit the hero joined)
  when its activation starts moves 3, marches 4 and has Charge for that activation (never
  less than its own); Resurrection is Medevac's roll for a Mindless Zombie unit within
  range 1 (the policy as for the medics).
* **Follow Me** (L3531-3533): once per turn, a special action, one of the activation's actions:
  each friendly infantry unit of armour 1 or 2 (the card's) within range 2 and sight, other
  than its own, rolls a die; on P it makes an immediate Move of 2 to the square the policy
  scores best (its activation is not spent; no reaction: it is no unit's activation, our
  reading). Policy: taken first when two such units or more have not activated this turn
  (the Move puts them closer before they act). Once per turn: the turn is kept in the unit's
  ``X_ALERT`` column (an aircraft's column otherwise; a Follow Me unit is infantry).
* **Black Ops** (L3441-3443): while a Black Ops hero of a side is in play, that side rolls four
  initiative dice against three (most P, ties by T, re-rolled while tied: the engagement
  kernel's comparison, L337); with equal dice the roll stays the fair coin it is.
* **Jammer** (L3565-3567): an enemy officer using its radio (a Rally or Get Moving of a unit
  beyond range 2 or out of its sight) within range 6 of a Jammer re-rolls its successful
  dice: a success counts only if its re-roll succeeds too; an Attack or Sustained Attack an
  Artillery Observer triggers while it stands within range 6 of an enemy Jammer re-rolls its
  successful to-hit dice the same way (:func:`jam_lines`, the dice kernel's ``JAMMED``; the
  range read as a radio's: our reading).
* **Smoke Grenades** (ENLIST; smoke L3226-3230): the skill's own text is in no seed. Decision:
  played as Smoke Launchers (L3651-3653): once per game a free smoke screen on the unit's
  square and three adjacent squares forming a 2x2 (the same policy); a unit with both has
  one screen of each.
* **Naval Unit** (L3607-3609): a free Attack action right after a March Move, from where it
  ends, when one is worth something (after Charge's and Move and Fire's, not on top of them;
  the plans do not count it when they choose the March). Not played: the water-only movement
  and the wreck becoming water (scenario tables have water only as 110's river, L2822).
* **Sealifter** (L3643-3645, L538-548): not played (the decision in the skills table: no list
  boards a Sealifter and no scenario table has a sea).
* **Interrogate** (L3561-3563): when a unit with it (or joined to it) eliminates an enemy hero
  (joined or lone) or officer in a close combat it fights (attacking or retaliating), or by
  Execute, its side rolls four initiative dice for the rest of the game (as Black Ops: most P,
  ties by T). Decision: an officer squad's officer soldier is not told apart by the engines,
  so the officer falls when its unit is destroyed.
* **Execute** (L3511-3513): a special action, one of the activation's actions, taken first
  after the token removal roll (the policy, as the medics'): an enemy infantry unit with a
  Stunned token within range 1 loses one soldier, its joined hero first (L3513: "including a
  Hero"); a lone hero is eliminated, a support weapon loses one crew (a damage point); the
  unit with most soldiers and points is chosen. No dice.
* **Sniper's chosen casualty** (L3315-3319; Head Shot, BattleScribe rule
  b11e-2700-038e-1344, played alike): the miniature a Sniper line names takes all its unsaved
  hits, wasted once it is gone (the dice kernel's per-line aim). Named policy
  **sniper-picks** (:func:`pick_aim`): a joined hero one hit finishes; else the squad's officer
  soldier; else the carrier of its line (not the leader's, not one every soldier carries) that
  rolls most against the sniper's side; never the Unit Leader (decision: the leader carries
  the squad's main line; the cards do not say which miniature leads, L2254) and no aim once
  one soldier is left. A carrier's fall takes one carrier from his line (restored each game).
  The attack event names the pick (``aim``).
* **The officer soldier** (L3707-3711): a squad whose card gives it command actions holds an
  officer soldier, whom the owner removes last (RULES.md §3) and a Sniper may name; with him
  gone (or with the last soldier) the squad takes no command action (:func:`officer_up`)
  unless its joined hero is an officer himself. A medic's Get Up returns him first (the owner's
  pick, :func:`regain`).
* **Spotter** (L3321-3323): named policy **spotter-weighs** (:func:`spot`): in a Sustained
  Attack whose sniper lines and spotter lines can both fire, the spotter stands down when the
  sniper lines' gain from P and T is at least what its own lines would do (expected unsaved
  hits x damage), else it fires and the sniper lines hit on their own faces. The plans value a
  Sustained Attack by the same choice (:func:`spot_plan`: with the spotter spotting, its lines
  out and the sniper lines at their P-and-T value). The event says which (``spotter``).
* **Assassin joined to a squad** (L3427-3429): his own close-combat lines (``SN_ASSASSIN``)
  send their hits to the target squad's joined hero, as a lone Assassin's do
  (:func:`assassin_aim`); the squad's own hits stay the owner's to allocate.
* **General joined to a unit with an officer** (L3537): Get Moving and Ammo Drop roll two dice,
  a success if either succeeds (the digest's OPEN-20 reading, :func:`order_dice`); Rally rolls
  its two dice per unit (L3731) and keeps them (decision).
* **Assault Vehicle** (BattleScribe rule c697-cca3-4af2-fbc5, Operation Kondor p. 112): its
  passengers may activate, and dismount, after the vehicle has activated
  (:mod:`dustsim.play.battle_carry`'s policy: a passenger that wants off now is picked before
  its vehicle, one that does not is picked last and dismounts then if it wants off).
"""

from __future__ import annotations

from collections.abc import Sequence

import numba as nb
import numpy as np

from dustsim.engines.kernel import (
    AIM_HERO,
    AIM_SOLDIER,
    AIMED_FELL,
    G_AUTO,
    G_DICE,
    G_DMG,
    G_HIT,
    G_MEDAL,
    G_RR,
    G_SAVE,
    JAMMED,
)
from dustsim.errors import DustsimError
from dustsim.play.board import BUILDING, BUILDING_OPENING, BUNKER, FOOT, JUMP
from dustsim.play.duel_kernel import (
    C_P,
    C_T,
    H_WT,
    R_CFG,
    W_CARRIERS,
    W_HERO,
    WT_BLAST,
    WT_DICE,
    _carriers,
)
from dustsim.play.duel_layout import (  # Interrogate's heroes and officers (L3563)
    H_GROUPS,
    H_ST,
    H_U,
    H_UNITS,
    H_WPN,
    H_WS,
    ST_HERO,
    ST_MODELS,
    ST_SINGLE,
    U_HERO,
    U_MODELS,
    U_SIDE,
    U_SQUAD,
    U_SUPPORT,
    U_W0,
    U_W1,
    W_CC,
)
from dustsim.rules.skills import skill_base

# -- layout: columns the battle kernel leaves free (checked there) -------------------------------
H_XU, H_SCR = 11, 12  # header slots of the unit-facts and square-scratch blocks
R_G, G_TURN = 3, 0  # the game-state row and its turn column
# game state: 1 once smoke was laid this game (:func:`lay_smoke`; the row is cleared at the
# start of a game, as the squares' smoke): :func:`smoke_on` reads no square before that
G_SMOKY = 14
X_RULES, X_SMOKE = 8, 9  # unit facts: rule bits, smoke launches per game
# per-game state, kept in the unit-facts block (the unit-state block's columns are the duel
# kernel's and the battle kernel's): camouflaged now, smoke launched, has taken an action this
# game, the turn it was air-dropped
ST_CAMO, ST_SMOKED, ST_FIRST, ST_DROP = 10, 11, 12, 13
WS_TGT = 4  # weapon state: the line's declared target (battle kernel)
SC_SMOKE = 7  # square scratch: the last turn a smoke screen stands on the square (0: none)
# issue 23, second round (appended: weapon-row columns past the duel layout's 13, unit-facts
# columns from the top of the row, rule bits 16-19 and 40-57, clear of the others' additions)
W_WIRE = 13  # weapon row: 1 for a wire-guided weapon (L3343-3345)
W_ARTY = 14  # weapon row: 1 for an artillery weapon (L3218-3224)
X_WIRE = 17  # unit facts: the wire-guided line chosen to fire alone in the next Attack, -1 none
RB_WIRE = np.int64(1 << 16)  # the unit has a wire-guided line
RB_OBSERVER = np.int64(1 << 17)  # Artillery Observer (L3419-3425)
RB_ARTILLERY = np.int64(1 << 18)  # the unit has an artillery line
G_OBSERVER = 17  # game state: 1 + the observer whose sight an attack uses now, 0 none
RB_MECHANIC = np.int64(1 << 19)  # Mechanic, Mechanic Crew: Makeshift Repair (L3759-3765)
REPAIR_DICE = 5  # L3763
RB_SPY = np.int64(1 << 40)  # Spy: not placed at the start (L3655-3657)
SPY_DICE = 2  # L3657
RB_OFFICER = np.int64(1 << 41)  # command actions: Rally, Get Moving (L3711-3731)
RB_RADIO = np.int64(1 << 42)  # its officer has a radio (L3713-3715)
RB_GENERAL = np.int64(1 << 43)  # a free officer action each activation (L3535-3537)
RB_DESERT_FOX = np.int64(1 << 44)  # its Get Moving grants At the Double (L3499-3501)
RB_JAMMER = np.int64(1 << 45)  # jams enemy radios within range 6 (L3565-3567)
RB_RED_BANNER = np.int64(1 << 46)  # three dice per unit Rallied (L3627-3629)
RB_COMMAND_VEHICLE = np.int64(1 << 47)  # failed command dice re-rolled (L3473-3475)
RB_BLACK_OPS = np.int64(1 << 48)  # its side rolls four initiative dice (L3441-3443)
RB_MEDIC = np.int64(1 << 49)  # Get Up, It Ain't That Bad (L3739-3743)
RB_MEDEVAC = np.int64(1 << 50)  # Medevac (L3591-3593)
RB_ZOMBIE = np.int64(1 << 51)  # no command special action targets it (L3703)
RB_AIR_ALERT = np.int64(1 << 52)  # the Air Alert special action (L3375-3377)
X_ALERT = 15  # unit facts, an aircraft: the turn an enemy Air Alert on it holds (0 none)
RB_MINDLESS = np.int64(1 << 53)  # contests objectives, never holds them (L3599-3601)
RB_BLUTKREUZ = np.int64(1 << 54)  # Mindless Zombies within range 1: Move 3, March 4, Charge
RB_RESURRECTION = np.int64(1 << 55)  # Resurrection special action (L3631-3633)
X_BOOST = 14  # unit facts: 1 + move + 16 march + 256 (had Charge) while a Blutkreuz boosts it
BLUTKREUZ_MOVE, BLUTKREUZ_MARCH = 3, 4  # L3447
RB_FOLLOW_ME = np.int64(1 << 56)  # the Follow Me special action (L3531-3533)
FOLLOW_MOVE = 2  # L3533
RB_LIGHT_INF = np.int64(1 << 57)  # an infantry unit of armour 1 or 2 (Follow Me's units)
X_REACT = 16  # unit facts: the turn it was reactivated by Get Moving (once per turn, L3727)
G_NEXT, G_FOX = 16, 15  # game state: 1 + the unit to reactivate now; 1: it gains At the Double
JAM_RANGE = 6  # L3567
ORDER_RANGE = 2  # L3725, L3731
# rule bits (X_RULES)
RB_SCOUT, RB_CHARGE, RB_FIRST_STRIKE, RB_MOVE_AND_FIRE, RB_AT_THE_DOUBLE, RB_TRAIL_BLAZER, \
    RB_AIRBORNE, RB_CAMOUFLAGE = (np.int64(1 << i) for i in range(8))
# Raid, Quick Recovery (BattleScribe rules; dustsim.rules.unit_rules): high bits, clear of
# the bits appended above
RB_RAID, RB_QUICK_RECOVERY = np.int64(1 << 20), np.int64(1 << 21)
RB_MARCH_COVER = np.int64(1 << 22)  # Crazy Jimmy piloting it (unit_rules.march_cover)
# issue 23, last round (the `cc` helper's bits 23-27)
RB_NAVAL = np.int64(1 << 23)  # Naval Unit: a free Attack after a March Move (L3607-3609)
RB_INTERROGATE = np.int64(1 << 24)  # Interrogate (L3561-3563)
RB_EXECUTE = np.int64(1 << 25)  # the Execute special action (L3511-3513)
RB_ASSAULT_VEHICLE = np.int64(1 << 26)  # passengers may dismount after it activated
#: game state kept in the rule bits: this unit's Interrogate has struck (its side rolls four
#: initiative dice for the rest of the game, L3563); cleared by :func:`reset_rules`
RB_INTERROGATED = np.int64(1 << 27)
EXECUTE_RANGE = 1  # L3513
# -- Sniper's chosen casualty, the officer soldier, the Spotter (issue 23; see :func:`pick_aim`)
#: weapon row: the line's carriers at the start of a game (bits 0-7, restored each game: a
#: Sniper may eliminate the carrier of a line) and the SN_* bits
W_SNIPE = 15
SN_CARRIERS = 255
SN_AIM = np.int64(256)  # a Sniper or Head Shot line: the attacker names the miniature (L3317)
SN_SPOTTER = np.int64(512)  # a ranged line of a Spotter squad's spotter (L3321-3323)
SN_SPOTTED = np.int64(1024)  # a sniper line that hits on T in a Sustained Attack only by it
SN_FIRST = np.int64(2048)  # a joined hero's own close-combat line with First Strike (L3525)
SN_ASSASSIN = np.int64(4096)  # a joined Assassin hero's own close-combat line (L3429)
X_SNIPED = 22  # unit facts: 1 once its officer soldier is eliminated (L3709), per game
X_SPOT = 23  # unit facts: its spotter in the Attack now: 0 no choice, 1 spots, 2 fires
G_PART = 18  # game state: the close-combat lines of the next retaliation (battle kernel's
# _retaliate): 0 all, 1 only a joined hero's First Strike lines, 2 all but those (L3525)
RB_SPOTTER = np.int64(1 << 58)  # Spotter (L3321-3323)
RB_OFFICER_SOLDIER = np.int64(1 << 59)  # one of its soldiers is an officer (L3709)
RB_HERO_OFFICER = np.int64(1 << 60)  # its joined hero is an officer (General: L3537)
# -- Inject Stimulants (issue 23, rules helper's slots: X col 18, SP 17-18, WHY 11) ------------
X_STIM = 18  # unit facts: 1 while the unit holds a Stimulants token (L3749), else 0
# unit facts of a platoon's ``holds`` unit: 1 once Dig In Girls!' re-roll is spent this game
# (battle_platoon, L2201)
X_DIG = 19
SP_STIM = np.int64(17)  # a medic's Inject Stimulants (L_TARGET: the unit given the token)
# the token's die when its unit activates (L_D0/L_D1; L_TOKEN the effect STIM_*; L_HITS 1 when
# the effect can add the third action, 0 when the unit has three already or is grappled)
SP_STIM_ROLL = np.int64(18)
WHY_STIM = np.int64(11)  # the attack the effect upgraded (its event's ``rule``)
#: the effects (L3753-3755): the player chooses; Attack -> Sustained; Move -> March Move
STIM_CHOOSE, STIM_SUSTAINED, STIM_MARCH = 1, 2, 3
STIM_NAMES = ("", "choose", "sustained", "march")
#: why the attack was taken (the event's text), by WHY code (battle.py reads it)
WHY_TEXT = {11: "Inject Stimulants: the Stimulants token's die lets it take a third action "
                "(L3751-3757)",
            15: "Retaliation against BRAINSSSS!: a friendly Mindless Zombie unit attacked it "
                "in close combat (L1634, L763-765)"}
WHY_BRAINS_BACK = np.int64(15)  # the friend's retaliation to a BRAINSSSS! attack

#: the aim of an attack (the attack event's ``aim``; AIM_LINE + w: the carrier of line w)
AIM_NONE, AIM_AT_HERO, AIM_AT_OFFICER, AIM_LINE = 0, 1, 2, 3
AIM_FELL = 1024  # logged with the aim: the named miniature was eliminated
SPOT_SPOTS, SPOT_FIRES = 2048, 4096  # logged with a Spotter squad's Sustained Attack
_ON, _OFF = np.bool_(True), np.bool_(False)  # one compiled version (not one per literal)
JAM_LOG = 8192  # logged with an observed attack whose successes a Jammer re-rolled (L3567)
ASSASSIN_LOG = 16384  # logged with the aim: an Assassin's, not a Sniper's (L3429)
X_KIND_ = 1  # the battle kernel's unit-facts column X_KIND (0 infantry; checked there)
DROP_CLEAR = 2  # L3393: an Airborne unit lands not within range 2 of an objective
CAMO_RANGE = 3  # L3455: cannot be attacked at range 3 or higher
#: rule bits -> names, listed per unit in the event log (``units[].rules``)
RULE_NAMES = ((RB_SCOUT, "Scout"), (RB_CHARGE, "Charge"), (RB_FIRST_STRIKE, "First Strike"),
              (RB_MOVE_AND_FIRE, "Move and Fire"), (RB_AT_THE_DOUBLE, "At the Double"),
              (RB_TRAIL_BLAZER, "Trail Blazer"), (RB_AIRBORNE, "Airborne"),
              (RB_CAMOUFLAGE, "Camouflage"), (RB_WIRE, "Wire-guided"),
              (RB_OBSERVER, "Artillery Observer"), (RB_MECHANIC, "Mechanic"),
              (RB_SPY, "Spy"), (RB_OFFICER, "Officer"), (RB_RADIO, "Radio"),
              (RB_GENERAL, "General"),
              (RB_DESERT_FOX, "Desert Fox"), (RB_JAMMER, "Jammer"),
              (RB_RED_BANNER, "Red Banner"), (RB_COMMAND_VEHICLE, "Command Vehicle"),
              (RB_BLACK_OPS, "Black Ops"), (RB_MEDIC, "Medic"), (RB_MEDEVAC, "Medevac"),
              (RB_AIR_ALERT, "Air Alert"), (RB_MINDLESS, "Mindless"),
              (RB_BLUTKREUZ, "Blutkreuz"), (RB_RESURRECTION, "Resurrection"),
              (RB_FOLLOW_ME, "Follow Me"), (RB_RAID, "Raid"),
              (RB_QUICK_RECOVERY, "Quick Recovery"), (RB_MARCH_COVER, "Crazy Jimmy"),
              (RB_NAVAL, "Naval Unit"), (RB_INTERROGATE, "Interrogate"),
              (RB_EXECUTE, "Execute"), (RB_ASSAULT_VEHICLE, "Assault Vehicle"),
              (RB_SPOTTER, "Spotter"), (RB_OFFICER_SOLDIER, "Officer soldier"),
              (RB_HERO_OFFICER, "Hero officer"))


def rule_names(m: np.ndarray, u: int) -> list[str]:
    """The names of unit u's rule bits (for the event log)."""
    bits = int(m[int(m[0, H_XU]) + u, X_RULES])
    out = [name for bit, name in RULE_NAMES if bits & int(bit)]
    return out + (["Smoke Launchers"] if m[int(m[0, H_XU]) + u, X_SMOKE] > 0 else [])


def line_roles(m: np.ndarray, w: int) -> dict:
    """A weapon line's roles for the event log's ``units[].weapons``: ``aims`` (a Sniper or
    Head Shot line, L3317), ``spotter`` (its spotter's line, L3323)."""
    bits = int(m[int(m[0, H_WPN]) + w, W_SNIPE])
    out = {}
    if bits & int(SN_AIM | SN_ASSASSIN):
        out["aims"] = True
    if bits & int(SN_SPOTTER):
        out["spotter"] = True
    return out


def aim_fields(word: int, target: str, weapon_names: Sequence[str], ev: dict) -> dict:
    """An attack event's ``aim`` (the miniature its Sniper lines named: ``miniature``
    officer / hero / carrier, ``line`` and ``weapon`` for a carrier, ``fell``) and
    ``spotter`` ("spots" or "fires"), with the sentence added to its text; ``word`` is the
    attack row's ``L_PN`` (:data:`AIM_FELL`, :data:`SPOT_SPOTS`, :data:`SPOT_FIRES` and the
    aim code)."""
    out: dict = {}
    text = ev.get("text", "")
    code = word & (AIM_FELL - 1)  # the aim code (below AIM_FELL); the flags above it
    fell = bool(word & AIM_FELL)
    if code != AIM_NONE:
        if code == AIM_AT_HERO:
            aim = {"miniature": "hero"}
            who = f"the hero joined to {target}"
            then = "he is eliminated" if fell else "he stands"
            if word & ASSASSIN_LOG:
                aim["by"] = "assassin"
                text += f" The Assassin picks {who} (L3429): {then}."
                who = ""
        elif code == AIM_AT_OFFICER:
            aim = {"miniature": "officer"}
            who = f"the officer of {target}"
            then = ("he falls: its command actions are lost (L3709)" if fell else
                    "he stands")
        else:
            line = code - AIM_LINE
            aim = {"miniature": "carrier", "line": line, "weapon": weapon_names[line]}
            who = f"the {weapon_names[line]} carrier of {target}"
            then = "he falls with his weapon" if fell else "he stands"
        aim["fell"] = fell
        out["aim"] = aim
        if who:
            text += f" Sniper picks {who} (L3317): {then}."
    if word & JAM_LOG:
        out["jammed"] = True
        text += (" A Jammer within range 6 of the observer: its successful dice were "
                 "re-rolled (L3567).")
    if word & SPOT_SPOTS:
        out["spotter"] = "spots"
        text += (" Its spotter spots and fires nothing: the sniper weapons hit on P and T "
                 "(L3321-3323).")
    elif word & SPOT_FIRES:
        out["spotter"] = "fires"
        text += (" Its spotter fires, so it gives the sniper weapons no help (L3321-3323).")
    out["text"] = text
    return out


def fill_rule_facts(m: np.ndarray, units: Sequence, lines: Sequence = ()) -> None:
    """Write each unit's rule flags (:func:`dustsim.rules.unit_rules.unit_rules` of its card,
    joined hero and pilot) into the kernel matrix ``m``: the bits of ``X_RULES`` and the smoke
    launches; and the weapon rules of its weapon ``lines`` (``(unit, Weapon, carrier)`` in the
    kernel's line order). (Advanced Reactive Fire's range and faces come with the duel
    compiler's unit row: ``U_REACT_RANGE``, ``U_REACT_MASK``.)"""
    from dustsim.rules.unit_rules import unit_rules

    x0 = int(m[0, H_XU])
    for u, du in enumerate(units):
        r = unit_rules(du.card, getattr(du, "hero", None), getattr(du, "pilot", None))
        bits = 0
        for flag, bit in ((r.scout, RB_SCOUT), (r.charge, RB_CHARGE),
                          (r.first_strike, RB_FIRST_STRIKE),
                          (r.move_and_fire, RB_MOVE_AND_FIRE),
                          (r.at_the_double, RB_AT_THE_DOUBLE),
                          (r.trail_blazer, RB_TRAIL_BLAZER), (r.airborne, RB_AIRBORNE),
                          (r.camouflage, RB_CAMOUFLAGE),
                          (r.artillery_observer, RB_OBSERVER), (r.mechanic, RB_MECHANIC),
                          (r.spy, RB_SPY), (r.officer, RB_OFFICER), (r.radio, RB_RADIO),
                          (r.general, RB_GENERAL), (r.desert_fox, RB_DESERT_FOX),
                          (r.jammer, RB_JAMMER), (r.red_banner, RB_RED_BANNER),
                          (r.command_vehicle, RB_COMMAND_VEHICLE),
                          (r.initiative_dice == 4, RB_BLACK_OPS), (r.medic, RB_MEDIC),
                          (r.medevac, RB_MEDEVAC), (r.zombie, RB_ZOMBIE),
                          (r.air_alert, RB_AIR_ALERT), (r.mindless, RB_MINDLESS),
                          (r.blutkreuz, RB_BLUTKREUZ), (r.resurrection, RB_RESURRECTION),
                          (r.follow_me, RB_FOLLOW_ME),
                          (du.card.armour in ("I1", "I2"), RB_LIGHT_INF),
                          (r.raid, RB_RAID), (r.quick_recovery, RB_QUICK_RECOVERY),
                          (r.march_cover, RB_MARCH_COVER), (r.naval_unit, RB_NAVAL),
                          (r.interrogate, RB_INTERROGATE), (r.execute, RB_EXECUTE),
                          (r.assault_vehicle, RB_ASSAULT_VEHICLE),
                          (r.spotter, RB_SPOTTER), (r.officer_soldier, RB_OFFICER_SOLDIER),
                          (r.hero_officer, RB_HERO_OFFICER)):
            if flag:
                bits |= int(bit)
        m[x0 + u, X_RULES] = bits
        m[x0 + u, X_SMOKE] = r.smoke_launchers + r.smoke_grenades
        m[x0 + u, X_WIRE] = -1
    for i, (u, w, _carrier) in enumerate(lines):
        if "wire-guided" in w.keywords:
            m[int(m[0, H_WPN]) + i, W_WIRE] = 1
            m[x0 + u, X_RULES] |= int(RB_WIRE)
        if "artillery" in w.keywords:
            m[int(m[0, H_WPN]) + i, W_ARTY] = 1
            m[x0 + u, X_RULES] |= int(RB_ARTILLERY)
        m[int(m[0, H_WPN]) + i, W_SNIPE] = _snipe_bits(units[u], w, _carrier,
                                                       int(m[int(m[0, H_WPN]) + i, W_CARRIERS]))


def _snipe_bits(du, w, carrier, carriers: int) -> int:
    """A line's ``W_SNIPE`` word: its carriers, and whether it aims (Sniper L3317; Head Shot,
    BattleScribe rule b11e-2700-038e-1344, as ``rules.attack`` plays it), is the spotter's
    (a ranged line of a Spotter squad's own card other than its sniper lines, L3323) or hits
    on T in a Sustained Attack only through the Spotter (no Power Scope, Take Aim, Expert or
    Savage Animal of its own: two upgrades never go beyond 2/3, RULES.md §1)."""
    from dustsim.rules.attack import weapon_skills

    if carriers > SN_CARRIERS:
        raise DustsimError("internal: a weapon line of more than 255 carriers")
    bits = carriers
    kw = set(w.keywords)
    sniper = bool(kw & {"sniper", "head-shot"})
    if sniper:
        bits |= int(SN_AIM)
    hero = getattr(du, "hero", None)
    if w.close_combat and hero is not None and carrier is hero and any(
            skill_base(x) == "first strike" for x in hero.skills) and not any(
            skill_base(x) == "first strike" for x in du.card.skills):
        bits |= int(SN_FIRST)  # the hero's own First Strike, not shared (L3525)
    if w.close_combat and hero is not None and carrier is hero and any(
            skill_base(x) == "assassin" for x in hero.skills):
        bits |= int(SN_ASSASSIN)  # his own close-combat hits go where he says (L3429)
    spotter = carrier is du.card and du.card.kind == "squad" and any(
        skill_base(x) == "spotter" for x in du.card.skills)
    if spotter and not w.close_combat:
        if not sniper:
            bits |= int(SN_SPOTTER)
        elif "sniper" in kw and not ({"power-scope"} & kw) and not (
                weapon_skills(carrier, w) & {"take aim", "power scope", "power scopes",
                                             "expert", "savage animal"}):
            bits |= int(SN_SPOTTED)
    return bits


@nb.njit(nogil=True, cache=True, _nrt=False)
def has(m, u, bit):
    """Unit u has the rule ``bit`` (RB_*)."""
    return (m[m[0, H_XU] + u, X_RULES] & bit) != 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def reset_rules(m, n):
    """Start of a game: camouflaged units hidden (L3457), smoke unused and cleared, nobody has
    acted or dropped yet."""
    rx = m[0, H_XU]
    for u in range(m[0, 0]):
        m[rx + u, ST_CAMO] = 1 if (m[rx + u, X_RULES] & RB_CAMOUFLAGE) != 0 else 0
        m[rx + u, ST_SMOKED] = 0
        m[rx + u, ST_FIRST] = 0
        m[rx + u, ST_DROP] = 0
        m[rx + u, X_WIRE] = -1
        m[rx + u, X_REACT] = 0
        m[rx + u, X_ALERT] = 0
        m[rx + u, X_BOOST] = 0
        m[rx + u, X_DIG] = 0  # Dig In Girls!' re-roll unspent (battle_platoon, L2201)
        m[rx + u, X_RULES] &= ~RB_INTERROGATED
    reset_snipes(m)  # lines' carriers back, officers standing (pick_aim, L3317, L3709)
    rsc = m[0, H_SCR]
    for s in range(n):
        m[rsc + s, SC_SMOKE] = 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def smoke_on(m, s):
    """A smoke screen stands on square s this turn (none before the game's first, G_SMOKY)."""
    if m[R_G, G_SMOKY] == 0:
        return False
    return m[m[0, H_SCR] + s, SC_SMOKE] >= m[R_G, G_TURN] and m[m[0, H_SCR] + s, SC_SMOKE] > 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def hidden(m, t, d):
    """Target t is camouflaged and at range d >= 3: it cannot be attacked (L3455)."""
    return d >= CAMO_RANGE and m[m[0, H_XU] + t, ST_CAMO] != 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def unhide(m, u):
    """u took an action other than Move or Nothing: camouflage ends (L3455)."""
    m[m[0, H_XU] + u, ST_CAMO] = 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def can_stand(m, bd, u, s, n):
    """u may end a move on s: a Flying (JUMP class) unit only where FOOT could (L3529)."""
    if m[m[0, H_XU] + u, 0] == JUMP:  # X_CLASS is column 0
        return bd[9 * n + 4 + FOOT, s] < 99
    return True


@nb.njit(nogil=True, cache=True, _nrt=False)
def class_total(m, u, val, only_cc):
    """The value of u's close-combat (``only_cc``) or ranged lines in the last offence scored
    (``val[w, 3]``: each line's best value there)."""
    ru = m[0, H_UNITS] + u
    tot = 0.0
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        if (m[m[0, H_WPN] + w, W_CC] != 0) == only_cc:
            tot += val[w, 3]
    return tot


@nb.njit(nogil=True, cache=True, _nrt=False)
def keep_class(m, u, only_cc):
    """Leave declared (WS_TGT) only u's close-combat (``only_cc``) or only its ranged lines;
    True if one of them is still declared."""
    ru = m[0, H_UNITS] + u
    rws = m[0, H_WS]
    left = False
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        if (m[m[0, H_WPN] + w, W_CC] != 0) != only_cc:
            m[rws + w, WS_TGT] = -1
        elif m[rws + w, WS_TGT] >= 0:
            left = True
    return left


@nb.njit(nogil=True, cache=True, _nrt=False)
def has_cc_line(m, u):
    ru = m[0, H_UNITS] + u
    found = False
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        if m[m[0, H_WPN] + w, W_CC] != 0:
            found = True
    return found


@nb.njit(nogil=True, cache=True, _nrt=False)
def smoke_square(width, height, s, toward):
    """The far corner of the 2x2 smoke screen on square s that opens towards square
    ``toward`` (L3653: the vehicle's square and three adjacent squares forming a 2x2)."""
    c = s % width
    r = s // width
    dc = 1 if toward % width >= c else -1
    dr = 1 if toward // width >= r else -1
    if c + dc < 0 or c + dc >= width:
        dc = -dc
    if r + dr < 0 or r + dr >= height:
        dr = -dr
    return (r + dr) * width + c + dc


@nb.njit(nogil=True, cache=True, _nrt=False)
def lay_smoke(m, bd, n, width, s, corner, last_turn):
    """Smoke on the 2x2 with opposite corners s and ``corner`` until the end of
    ``last_turn``; never into a building or bunker (L3229)."""
    rsc = m[0, H_SCR]
    c0 = s % width
    r0 = s // width
    c1 = corner % width
    r1 = corner // width
    for q in (r0 * width + c0, r0 * width + c1, r1 * width + c0, r1 * width + c1):
        t = bd[9 * n, q]  # terrain row
        if t != BUILDING and t != BUILDING_OPENING and t != BUNKER:
            m[rsc + q, SC_SMOKE] = last_turn
            m[R_G, G_SMOKY] = 1


@nb.njit(nogil=True, cache=True, _nrt=False)
def _group(m, w, t, cov, variant):
    """The dice group row of line w on t (cover ``cov``; variant 0 Attack, 1 Sustained)."""
    U = m[0, H_U]
    wg = (m[0, H_GROUPS + 1] - m[0, H_GROUPS]) // (U * 4)
    return m[0, H_GROUPS] + ((t * 2 + cov) * 2 + variant) * wg + w


@nb.njit(nogil=True, cache=True, _nrt=False)
def wire_choice(m, u, total, val, commit):
    """The value of u's plain Attack with its lines at the targets :func:`_offence` scored
    (``val[w, 3]``, targets in weapon-state columns 6-7): ``total`` (every line together) or
    one wire-guided line of one carrier fired alone, its value times 2 - p (L3345: misses
    re-rolled, expected hits p -> p(2 - p)), whichever is larger. With ``commit`` the choice
    is kept for the next Attack (``X_WIRE``: the line, -1 every line)."""
    rx = m[0, H_XU] + u
    if commit:
        m[rx, X_WIRE] = -1
    if (m[rx, X_RULES] & RB_WIRE) == 0:
        return total
    ru = m[0, H_UNITS] + u
    rws = m[0, H_WS]
    best = total
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        t = m[rws + w, 6]
        if m[m[0, H_WPN] + w, W_WIRE] == 0 or t < 0 or _carriers(m, w) != 1:
            continue
        hit = m[_group(m, w, t, m[rws + w, 7], 0), G_HIT] & 7
        p = ((hit & 1) + ((hit >> 1) & 1) + ((hit >> 2) & 1)) / 3.0
        v = val[w, 3] * (2.0 - p)
        if v > best:
            best = v
            if commit:
                m[rx, X_WIRE] = w
    return best


@nb.njit(nogil=True, cache=True, _nrt=False)
def wire_alone(m, u):
    """Start of u's Attack action: when the policy chose to fire one wire-guided line alone
    (``X_WIRE``), every other line stands down and that line's Attack group re-rolls its misses
    (L3345); returns the group row changed (its re-roll mask to restore), -1 if none."""
    rx = m[0, H_XU] + u
    w = m[rx, X_WIRE]
    m[rx, X_WIRE] = -1
    if w < 0:
        return -1
    ru = m[0, H_UNITS] + u
    rws = m[0, H_WS]
    t = m[rws + w, WS_TGT]
    if t < 0:
        return -1
    for v in range(m[ru, U_W0], m[ru, U_W1]):
        if v != w:
            m[rws + v, WS_TGT] = -1
    g = _group(m, w, t, m[rws + w, 5], 0)  # WS_COV
    m[rx, X_WIRE] = -2 - m[g, G_RR]  # the mask to restore, kept here until wire_done
    m[g, G_RR] = m[g, G_HIT]
    return g


@nb.njit(nogil=True, cache=True, _nrt=False)
def wire_done(m, u, g):
    """After the Attack: the group's own re-roll mask back (see :func:`wire_alone`)."""
    rx = m[0, H_XU] + u
    if g >= 0:
        m[g, G_RR] = -2 - m[rx, X_WIRE]
    m[rx, X_WIRE] = -1


@nb.njit(nogil=True, cache=True, _nrt=False)
def vip(m, u):
    """1 while unit u holds a hero or an officer that Interrogate counts (L3563): a joined
    hero alive, a squad's officer soldier standing (:func:`officer_up`: the owner removes him
    last, a Sniper may take him), or the unit standing when it is an officer itself (a hero,
    a vehicle)."""
    r = m[0, H_ST] + u
    if m[m[0, H_UNITS] + u, U_HERO] > 0 and m[r, ST_HERO] > 0:
        return 1
    if (m[m[0, H_XU] + u, X_RULES] & RB_OFFICER_SOLDIER) != 0:
        return 1 if _soldier_officer_up(m, u) else 0  # its officer soldier (L3709)
    if (m[m[0, H_XU] + u, X_RULES] & RB_OFFICER) != 0 or (
            m[m[0, H_UNITS] + u, U_SQUAD] == 0 and m[m[0, H_UNITS] + u, U_SUPPORT] == 0
            and m[m[0, H_XU] + u, X_KIND_] == 0):
        return 1 if m[r, ST_MODELS] + m[r, ST_HERO] + m[r, ST_SINGLE] > 0 else 0
    return 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def vips(m, u, t):
    """Before a close combat of u and t: bit 0 u holds a hero or officer, bit 1 t does."""
    return vip(m, u) | (vip(m, t) << 1)


@nb.njit(nogil=True, cache=True, _nrt=False)
def interrogate(m, u, t, before):
    """After u and t fought (close combat, or u's Execute on t): a unit with Interrogate that
    eliminated the other's hero or officer marks its side's four initiative dice (L3563)."""
    x = m[0, H_XU]
    if (before & 2) != 0 and vip(m, t) == 0 and (m[x + u, X_RULES] & RB_INTERROGATE) != 0:
        m[x + u, X_RULES] |= RB_INTERROGATED
    if (before & 1) != 0 and vip(m, u) == 0 and (m[x + t, X_RULES] & RB_INTERROGATE) != 0:
        m[x + t, X_RULES] |= RB_INTERROGATED


@nb.njit(nogil=True, cache=True, _nrt=False)
def interrogated(m, side):
    """Side ``side`` rolls four initiative dice: one of its units' Interrogate has struck (for
    the rest of the game, alive or not, L3563)."""
    x = m[0, H_XU]
    for u in range(m[0, H_U]):
        if m[m[0, H_UNITS] + u, U_SIDE] == side and \
                (m[x + u, X_RULES] & RB_INTERROGATED) != 0:
            return True
    return False


@nb.njit(nogil=True, cache=True, _nrt=False)
def officer_up(m, u):
    """Unit u may take the officer's command actions: it has an officer who stands (L3709):
    its joined hero when he is one (``RB_HERO_OFFICER``), or its officer soldier
    (``RB_OFFICER_SOLDIER``) while he is not eliminated by a Sniper's aim nor gone with the
    squad's last soldier (the owner removes him last); a unit that is an officer itself (a
    hero, a vehicle) while it stands."""
    x = m[0, H_XU] + u
    rb = m[x, X_RULES]
    if (rb & RB_OFFICER) == 0:
        return False
    if (rb & RB_HERO_OFFICER) != 0 and m[m[0, H_ST] + u, ST_HERO] > 0:
        return True
    if (rb & RB_OFFICER_SOLDIER) != 0:
        return _soldier_officer_up(m, u)
    return (rb & RB_HERO_OFFICER) == 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def _soldier_officer_up(m, u):
    return m[m[0, H_XU] + u, X_SNIPED] == 0 and m[m[0, H_ST] + u, ST_MODELS] > 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def order_dice(m, u):
    """Dice of u's one-die officer actions (Get Moving, Ammo Drop): two for a General joined
    to a squad with an officer soldier while both stand (L3537: a success if either die
    succeeds, the digest's OPEN-20 reading; Rally rolls its two dice per unit already,
    L3731, and keeps them: a decision), else one."""
    x = m[0, H_XU] + u
    both = RB_GENERAL | RB_HERO_OFFICER | RB_OFFICER_SOLDIER
    if (m[x, X_RULES] & both) == both and m[m[0, H_ST] + u, ST_HERO] > 0 and \
            _soldier_officer_up(m, u):
        return np.int64(2)
    return np.int64(1)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _faces(mask):
    return (mask & 1) + ((mask >> 1) & 1) + ((mask >> 2) & 1)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _leader_line(m, t):
    """The Unit Leader's line of squad t, whom a Sniper may not name (L3317): decision, the
    leader carries the squad's ranged line of most carriers (the first such line); -1 none."""
    ru = m[0, H_UNITS] + t
    rwp = m[0, H_WPN]
    best = -1
    bc = 0
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        c = m[rwp + w, W_SNIPE] & SN_CARRIERS
        if m[rwp + w, W_HERO] == 0 and m[rwp + w, W_CC] == 0 and c > bc:
            best, bc = w, c
    return best


@nb.njit(nogil=True, cache=True, _nrt=False)
def pick_aim(m, u, t, rg, w0, w1):
    """The miniature u's Sniper (or Head Shot) lines name in this attack on t (L3317), under
    the named policy **sniper-picks**: the lines that fire at t now are the group rows
    ``rg + w`` with dice. A squad target only (a lone unit is one miniature); the Unit Leader
    never (L3317; the leader is the carrier of the squad's main line: :func:`_leader_line`).
    In this order: (1) a joined hero whom one hit of the line finishes (damage left no more
    than a hit's damage, or automatic kill: a hero is the unit's dearest miniature; L3317
    lets a Sniper name a hero); (2) the squad's officer soldier while two soldiers or more
    stand (its command actions end with him, L3709); (3) the carrier of the squad's line
    (not the leader's, nor one every soldier carries) that rolls most against the sniper's
    side (dice per carrier x its faces x damage per hit, best target; an automatic kill
    counts that target's full track), while two soldiers or more stand; else no aim (the
    owner allocates, L731). Returns :data:`AIM_NONE`, :data:`AIM_AT_HERO`,
    :data:`AIM_AT_OFFICER` or AIM_LINE + line."""
    ru = m[0, H_UNITS]
    rs = m[0, H_ST]
    rwp = m[0, H_WPN]
    if m[ru + t, U_SQUAD] == 0:
        return AIM_NONE
    aims = False
    dmg = 0
    auto = False
    for w in range(w0, w1):
        if m[rg + w, G_DICE] > 0 and (m[rwp + w, W_SNIPE] & SN_AIM) != 0:
            aims = True
            if m[rg + w, G_DMG] > dmg:
                dmg = m[rg + w, G_DMG]
            if m[rg + w, G_AUTO] != 0:
                auto = True
    if not aims:
        return AIM_NONE
    hero = m[rs + t, ST_HERO]
    if hero > 0 and (auto or dmg >= hero):
        return AIM_AT_HERO
    if m[rs + t, ST_MODELS] < 2:
        return AIM_NONE
    x = m[0, H_XU] + t
    if (m[x, X_RULES] & RB_OFFICER_SOLDIER) != 0 and m[x, X_SNIPED] == 0:
        return AIM_AT_OFFICER
    lead = _leader_line(m, t)
    U = m[0, H_U]
    side = m[ru + u, U_SIDE]
    best = -1
    bv = 0.0
    for w in range(m[ru + t, U_W0], m[ru + t, U_W1]):
        if w == lead or m[rwp + w, W_HERO] != 0 or m[rwp + w, W_CARRIERS] <= 0:
            continue
        c0 = m[rwp + w, W_SNIPE] & SN_CARRIERS
        if c0 == 0 or c0 >= m[ru + t, U_MODELS] or _carriers(m, w) <= 0:
            continue  # every soldier carries it: no one soldier is its carrier
        v = 0.0
        for e in range(U):
            if m[ru + e, U_SIDE] != side:
                continue
            r = rs + e
            if m[r, ST_MODELS] + m[r, ST_HERO] + m[r, ST_SINGLE] <= 0:
                continue
            wt = m[0, H_WT] + w * U + e
            nd = m[wt, WT_DICE] + m[wt, WT_BLAST]
            if nd <= 0:
                continue
            g = _group(m, w, e, 0, 0)
            d = m[g, G_DMG]
            if m[g, G_AUTO] != 0:
                d = m[ru + e, 2] + m[ru + e, 3]  # U_HERO + U_SINGLE: the full track
            if d < 1:
                d = 1
            ve = nd * _faces(m[g, G_HIT]) * d / 3.0
            if ve > v:
                v = ve
        if v > bv:
            best, bv = w, v
    return AIM_NONE if best < 0 else AIM_LINE + best


@nb.njit(nogil=True, cache=True, _nrt=False)
def sniper_mask(m, u):
    """Bit w - U_W0 set for each of u's Sniper lines (an attack row's ``L_WMASK`` bits)."""
    ru = m[0, H_UNITS] + u
    out = 0
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        if (m[m[0, H_WPN] + w, W_SNIPE] & SN_AIM) != 0 and w - m[ru, U_W0] < 62:
            out |= 1 << (w - m[ru, U_W0])
    return out


@nb.njit(nogil=True, cache=True, _nrt=False)
def assassin_aim(m, t, rg, w0, w1):
    """A joined Assassin hero's close-combat lines firing now (group rows ``rg + w`` with
    dice) at a squad t with a joined hero standing: his hits go to that hero, as a lone
    Assassin's do in the kernels (L3429: the Assassin picks; the hero may be picked)."""
    if m[m[0, H_UNITS] + t, U_SQUAD] == 0 or m[m[0, H_ST] + t, ST_HERO] <= 0:
        return AIM_NONE
    for w in range(w0, w1):
        if m[rg + w, G_DICE] > 0 and (m[m[0, H_WPN] + w, W_SNIPE] & SN_ASSASSIN) != 0:
            return AIM_AT_HERO
    return AIM_NONE


@nb.njit(nogil=True, cache=True, _nrt=False)
def aim_lines(m, rg, w0, w1, code, on, sn):
    """Mark (``on``) or clear the aim of the lines of ``sn`` (SN_AIM: Sniper lines;
    SN_ASSASSIN) firing now (group rows ``rg + w`` with dice): their unsaved hits go to the
    named miniature, wasted once it is gone (the dice kernel's AIM_HERO / AIM_SOLDIER,
    L3317)."""
    bit = AIM_HERO if code == AIM_AT_HERO else AIM_SOLDIER
    rwp = m[0, H_WPN]
    for w in range(w0, w1):
        if on:
            if m[rg + w, G_DICE] > 0 and (m[rwp + w, W_SNIPE] & sn) != 0:
                m[rg + w, G_MEDAL] |= bit
        else:
            m[rg + w, G_MEDAL] &= ~(AIM_HERO | AIM_SOLDIER)


@nb.njit(nogil=True, cache=True, _nrt=False)
def aimed(m, t, code, rr):
    """After the attack's dice (result row ``rr``, not yet applied to t): whether the named
    miniature fell; the officer soldier's fall ends t's command actions (L3709), a line's
    carrier's fall takes one carrier from that line (its weapon is gone with him)."""
    if code == AIM_NONE:
        return False
    if code == AIM_AT_HERO:
        return m[rr, 3] >= m[m[0, H_ST] + t, ST_HERO]
    if (m[rr, 5] & AIMED_FELL) == 0:
        return False
    if code == AIM_AT_OFFICER:
        m[m[0, H_XU] + t, X_SNIPED] = 1
    else:
        w = m[0, H_WPN] + code - AIM_LINE
        if m[w, W_CARRIERS] > 0:
            m[w, W_CARRIERS] -= 1
    return True


@nb.njit(nogil=True, cache=True, _nrt=False)
def regain(m, t):
    """A medic returned one soldier to squad t (L3741): the owner picks the one to return
    (L731 reading): the officer soldier a Sniper took, else the carrier of a line a Sniper
    took (the first such line)."""
    x = m[0, H_XU] + t
    if m[x, X_SNIPED] != 0:
        m[x, X_SNIPED] = 0
        return
    rwp = m[0, H_WPN]
    ru = m[0, H_UNITS] + t
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        if m[rwp + w, W_CARRIERS] < (m[rwp + w, W_SNIPE] & SN_CARRIERS):
            m[rwp + w, W_CARRIERS] += 1
            return


@nb.njit(nogil=True, cache=True, _nrt=False)
def reset_snipes(m):
    """Start of a game: every line's carriers back, officers standing, no spotter choice."""
    for u in range(m[0, H_U]):
        unsnipe(m, u)


@nb.njit(nogil=True, cache=True, _nrt=False)
def unsnipe(m, u):
    """Unit u whole again (a new game, or back from Reserve fresh, L3102): its lines' carriers
    back, its officer standing, no spotter choice, no Stimulants token."""
    rwp = m[0, H_WPN]
    ru = m[0, H_UNITS] + u
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        c = m[rwp + w, W_SNIPE] & SN_CARRIERS
        if c > 0:
            m[rwp + w, W_CARRIERS] = c
    m[m[0, H_XU] + u, X_SNIPED] = 0
    m[m[0, H_XU] + u, X_SPOT] = 0
    m[m[0, H_XU] + u, X_STIM] = 0  # no Stimulants token (L3749)


@nb.njit(nogil=True, cache=True, _nrt=False)
def spot_plan(m, u, val, sust):
    """Policy spotter-weighs in the plans (:func:`spot`'s choice before the move, L3321-3323):
    what to add to a Sustained Attack's score ``sust`` x (the lines' values ``val[w, 3]``, each
    at the target the battle kernel's ``_offence`` just chose, weapon state columns 6-7) when
    the spotter would spot: its lines' values out, each sniper line's value scaled by what P
    and T add to it (its Sustained expected unsaved hits x damage with T over without). 0
    when it would fire (the plans' score already counts every line, the sniper lines on P),
    or when there is no choice."""
    if (m[m[0, H_XU] + u, X_RULES] & RB_SPOTTER) == 0:
        return 0.0
    ru = m[0, H_UNITS] + u
    rwp = m[0, H_WPN]
    rws = m[0, H_WS]
    tmask = m[R_CFG, C_T]
    gain = 0.0
    own = 0.0
    extra = 0.0
    out = 0.0
    snipers = False
    spotters = False
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        v = val[w, 3]
        t = m[rws + w, 6]
        c = _carriers(m, w)
        if v <= 0.0 or t < 0 or c <= 0:
            continue
        cov = m[rws + w, 7]
        sb = m[rwp + w, W_SNIPE]
        if (sb & SN_SPOTTED) != 0:
            snipers = True
            hit = m[_group(m, w, t, cov, 1), G_HIT]
            with_t = _sustained_value(m, w, t, cov, c, hit)
            without = _sustained_value(m, w, t, cov, c, hit & ~tmask)
            gain += with_t - without
            if without > 0.0:
                extra += v * (with_t / without - 1.0)
        elif (sb & SN_SPOTTER) != 0:
            spotters = True
            own += _sustained_value(m, w, t, cov, c, m[_group(m, w, t, cov, 1), G_HIT])
            out += v
    if not (snipers and spotters) or gain < own:
        return 0.0
    return sust * (extra - out)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _sustained_value(m, w, t, cov, carriers, hit):
    """Expected unsaved hits x damage of line w's Sustained Attack on t with ``carriers``,
    hitting on the faces ``hit`` (misses re-rolled, L793), saves from its group row."""
    U = m[0, H_U]
    wt = m[0, H_WT] + w * U + t
    g = _group(m, w, t, cov, 1)
    p = _faces(hit) / 3.0
    p = p + (1.0 - p) * p
    d = m[g, G_DMG] if m[g, G_DMG] > 0 else 1
    return m[wt, WT_DICE] * carriers * p * (1.0 - _faces(m[g, G_SAVE]) / 3.0) * d


@nb.njit(nogil=True, cache=True, _nrt=False)
def spot(m, u, able):
    """Start of u's Attack action: a Spotter squad's Sustained Attack in which its sniper
    lines (hitting on T through the Spotter only) and its spotter's lines both have a target
    (L3321-3323: only a spotter that does not fire helps). Named policy **spotter-weighs**:
    the spotter spots (its lines stand down) when the sniper lines' gain (expected unsaved
    hits x damage with P and T minus with P alone, misses re-rolled) is at least what the
    spotter's lines would do; else it fires and the sniper lines hit on their own faces in
    this attack (T taken out of their Sustained groups until :func:`spot_done`). Kept in
    ``X_SPOT`` (1 spots, 2 fires, 0 no choice) for the event log. ``able``: bit w - U_W0
    for each line that can fire at its declared target (the battle kernel's range check)."""
    x = m[0, H_XU] + u
    m[x, X_SPOT] = 0
    if (m[x, X_RULES] & RB_SPOTTER) == 0:
        return
    ru = m[0, H_UNITS] + u
    rwp = m[0, H_WPN]
    rws = m[0, H_WS]
    tmask = m[R_CFG, C_T]
    gain = 0.0
    own = 0.0
    snipers = False
    spotters = False
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        t = m[rws + w, WS_TGT]
        c = _carriers(m, w)
        if t < 0 or c <= 0 or ((able >> (w - m[ru, U_W0])) & 1) == 0:
            continue
        sb = m[rwp + w, W_SNIPE]
        cov = m[rws + w, 5]  # WS_COV
        if (sb & SN_SPOTTED) != 0:
            snipers = True
            hit = m[_group(m, w, t, cov, 1), G_HIT]
            gain += _sustained_value(m, w, t, cov, c, hit) - _sustained_value(
                m, w, t, cov, c, hit & ~tmask)
        elif (sb & SN_SPOTTER) != 0:
            spotters = True
            own += _sustained_value(m, w, t, cov, c, m[_group(m, w, t, cov, 1), G_HIT])
    if not (snipers and spotters):
        return
    if gain >= own:
        m[x, X_SPOT] = 1
        for w in range(m[ru, U_W0], m[ru, U_W1]):
            if (m[rwp + w, W_SNIPE] & SN_SPOTTER) != 0:
                m[rws + w, WS_TGT] = -1
        return
    m[x, X_SPOT] = 2
    _spotted(m, u, _OFF)


@nb.njit(nogil=True, cache=True, _nrt=False)
def _spotted(m, u, on):
    """Give (``on``) or take the Spotter's T to u's sniper lines' Sustained groups."""
    ru = m[0, H_UNITS] + u
    rwp = m[0, H_WPN]
    tmask = m[R_CFG, C_T]
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        if (m[rwp + w, W_SNIPE] & SN_SPOTTED) == 0:
            continue
        for t in range(m[0, H_U]):
            for cov in range(2):
                g = _group(m, w, t, cov, 1)
                if on:
                    if m[g, G_HIT] != 0:
                        m[g, G_HIT] |= tmask
                    if m[g, G_RR] != 0:
                        m[g, G_RR] |= tmask
                else:
                    m[g, G_HIT] &= ~tmask
                    m[g, G_RR] &= ~tmask


@nb.njit(nogil=True, cache=True, _nrt=False)
def any_first(m, x):
    """x strikes first in some way: the unit's own First Strike, or its joined hero's, standing,
    with a close-combat line of his own (``SN_FIRST``)."""
    if (m[m[0, H_XU] + x, X_RULES] & RB_FIRST_STRIKE) != 0:
        return True
    if m[m[0, H_ST] + x, ST_HERO] <= 0:
        return False
    ru = m[0, H_UNITS] + x
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        if (m[m[0, H_WPN] + w, W_SNIPE] & SN_FIRST) != 0 and _carriers(m, w) > 0:
            return True
    return False


@nb.njit(nogil=True, cache=True, _nrt=False)
def hero_first(m, u, t):
    """Who of u (attacking) and t (retaliating) has a joined hero whose own First Strike
    goes first in their close combat (L3523-3525: not shared with the unit he joins): 1 u's
    hero, 2 t's hero, 0 none -- none when the other unit strikes first in any way too (both
    ignore it, L3525; a hero's First Strike counted as his unit's there: our reading), or
    when the hero's unit has First Strike itself (the kernel's First Strike covers it)."""
    fu = any_first(m, u)
    ft = any_first(m, t)
    if fu == ft:
        return 0
    x = u if fu else t
    if (m[m[0, H_XU] + x, X_RULES] & RB_FIRST_STRIKE) != 0:
        return 0
    return 1 if fu else 2


@nb.njit(nogil=True, cache=True, _nrt=False)
def first_lines(m, x, t, part):
    """Declare x's close-combat lines at t (WS_TGT): ``part`` 1 only its hero's First Strike
    lines, 2 all but those, 0 all; the others stand down (-1). Returns True if one is
    declared."""
    ru = m[0, H_UNITS] + x
    rws = m[0, H_WS]
    rwp = m[0, H_WPN]
    any_ = False
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        first = (m[rwp + w, W_SNIPE] & SN_FIRST) != 0
        on = m[rwp + w, W_CC] != 0 and (part == 0 or (part == 1) == first)
        m[rws + w, WS_TGT] = t if on else -1
        any_ = any_ or on
    return any_


@nb.njit(nogil=True, cache=True, _nrt=False)
def hold_lines(m, u, t, part):
    """The attacker u's close-combat lines declared at t: ``part`` 1 holds back all but its
    hero's First Strike lines (WS_TGT -2 - t), 2 brings them back and stands the First Strike
    lines down (they have struck). Returns True if a line is declared at t after."""
    ru = m[0, H_UNITS] + u
    rws = m[0, H_WS]
    rwp = m[0, H_WPN]
    any_ = False
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        if m[rwp + w, W_CC] == 0:
            continue
        first = (m[rwp + w, W_SNIPE] & SN_FIRST) != 0
        if part == 1 and m[rws + w, WS_TGT] == t and not first:
            m[rws + w, WS_TGT] = -2 - t
        elif part == 2 and m[rws + w, WS_TGT] == -2 - t:
            m[rws + w, WS_TGT] = t
        elif part == 2 and m[rws + w, WS_TGT] == t and first:
            m[rws + w, WS_TGT] = -1
        any_ = any_ or m[rws + w, WS_TGT] == t
    return any_


@nb.njit(nogil=True, cache=True, _nrt=False)
def jam_lines(m, a, on):
    """Mark (``on``) or clear the Jammer's re-roll of successes on every dice group of unit
    a's lines: an attack an Artillery Observer triggers within range 6 of an enemy Jammer
    re-rolls its successful dice (L3567; the dice kernel's :data:`JAMMED`)."""
    ru = m[0, H_UNITS] + a
    for w in range(m[ru, U_W0], m[ru, U_W1]):
        for t in range(m[0, H_U]):
            for cov in range(2):
                for v in range(2):
                    g = _group(m, w, t, cov, v)
                    if on:
                        m[g, G_MEDAL] |= JAMMED
                    else:
                        m[g, G_MEDAL] &= ~JAMMED


@nb.njit(nogil=True, cache=True, _nrt=False)
def spot_done(m, u):
    """End of u's Attack action: the sniper lines' Spotter faces back (see :func:`spot`, which
    runs only for a Sustained Attack);
    returns the log word of the choice (:data:`SPOT_SPOTS`, :data:`SPOT_FIRES` or 0)."""
    x = m[0, H_XU] + u
    s = m[x, X_SPOT]
    m[x, X_SPOT] = 0
    if s == 2:
        _spotted(m, u, _ON)
        return SPOT_FIRES
    return SPOT_SPOTS if s == 1 else 0


@nb.njit(nogil=True, cache=True, _nrt=False)
def stim_effect(m, face):
    """The Stimulants token's effect for the die's face class (0-2) (L3753-3755; the decision
    in the module docstring: P chooses, T Attack -> Sustained Attack, S Move -> March Move)."""
    if (m[R_CFG, C_P] >> face) & 1:
        return STIM_CHOOSE
    if (m[R_CFG, C_T] >> face) & 1:
        return STIM_SUSTAINED
    return STIM_MARCH


@nb.njit(nogil=True, cache=True, _nrt=False)
def stim_plan(plan, effect):
    """What the effect does to the battle kernel's plan (its codes: 1 a Sustained Attack where
    it stands, 2 Move + Attack, 4 and 11 a March Move, 5 the one Attack left): (plan, three,
    used). ``three``: the kernel's third action (Move + Sustained Attack, or an Attack after
    the March); plan 5 becomes 1 (a Nothing or special action, then the Attack as a Sustained
    Attack, three actions); plan 1 stays, the kernel adds a Move after it (the Sustained
    Attack counted one action: Sustained + Move, three actions; not for a Move and Fire unit,
    whose free Move follows it already). Other plans gain nothing (L3757)."""
    sus = 0 < effect < STIM_MARCH  # choose or Attack -> Sustained
    mar = effect > 0 and effect != STIM_SUSTAINED  # choose or Move -> March
    if plan == 2 and sus:
        return plan, True, True
    if (plan == 4 or plan == 11) and mar:
        return plan, True, True
    if plan == 5 and sus:
        return 1, False, True
    if plan == 1 and sus:  # the Sustained Attack is one action: the kernel adds a Move
        return plan, False, True
    return plan, False, False


from dustsim.engines.jit import one_version_per_type  # noqa: E402

one_version_per_type(globals())
