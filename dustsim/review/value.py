"""The value model: what a card is worth in play, and the army points that follow from it.

This module holds the whole definition (``dustsim report``, ``dustsim whatif`` and
``benchmarks/value_model.py`` use it; nothing here is fitted to printed costs except the one
mapping in step 4).

1. **Reference field** (:func:`reference_field`). For every armour class (I1-I4, V1-V7, A1-A3)
   that has playable cards in the edition, :data:`PER_CLASS` representatives: the class's
   cards sorted by printed AP (ties by name), those at the (i + 1/2)/k quantiles, i = 0..k-1
   (k = 1: the lower median). Cards whose value lies mainly in a role the model does not play
   (step 5) are not representatives. A class's weight is its share of the edition's army points
   (every card with a cost counts), split evenly among its representatives, so the field looks
   like the armies a card meets. The printed AP only *chooses* representatives across the
   class's range; it is never used to score them.
2. **Engagements** (:func:`engagements`). Each card plays one on one against every
   representative with :mod:`dustsim.play.duel` (its engagement kernel: initiative, alternating
   activations, movement and March Move, range bands, reactive fire, Under Fire and
   Suppression, close combat with retaliation, persistent damage, firepower lost as models
   die, limited ammo and reload; the default :class:`~dustsim.play.duel.DuelPolicy`), the
   infantry of both sides **in cover** and vehicles and aircraft in the open
   (``infantry_cover``; an Infantry Cover Save, P or S, replaces the Infantry Save, 1947
   L682-686: the line has no squares, so one state is chosen for every unit of a class; infantry
   fights from the cover every scenario board offers, a vehicle's cover depends on the squares
   it can enter. Measured on Dust 1947, seed 0, engagements and battles: in the open Spearman
   0.840 / log R² 0.703 / fair/printed at 2-3 AP 1.55, in cover 0.842 / 0.720 / 1.39), for
   :data:`TURNS` turns from each starting distance of :data:`DISTANCES` (squares,
   equally likely), ``trials`` engagements per distance. **What lasts the game is rationed**
   (``ration_game``, :func:`rationed`): a weapon's boxes of ammunition (L3288) and a
   once-per-game skill (:data:`GAME_ONCE`: Fighting Spirit, Lucky, Smoke Launchers) last the
   whole game (:data:`GAME_TURNS` = 8 turns in every scenario, 101-115) and an engagement is
   :data:`TURNS` of them, so each side has that share ``p`` = 1/2: half the engagements with
   the boxes rounded up and the skills, half with the boxes rounded down and without them
   (a 2-box weapon fires 1 box, a 1-box one in half the engagements). With all of it, a
   Volley card spent in one fight what it must spread over the game's opponents (issue 24:
   the 52 limited-ammunition cards were over-valued against the others by 0.19 in log AP on
   average, the Volley aircraft by 0.53; with the boxes rounded up, 0.11 and 0.24. Dust
   1947, seed 0, the report's model: Spearman 0.849 / log R² 0.746 -> 0.850 / 0.752 with
   the boxes rounded up, aircraft 0.684 -> 0.731; the halves and the once-per-game skills:
   0.860 / 0.767 -> 0.862 / 0.770). The card is side A; a hero plays
   **joined** to its class's median squad (:func:`host_squads`; ``join_heroes``) and is
   worth what it adds: fair(joined unit) - fair(squad alone) (:func:`_apply`), valued from
   these joined engagements alone (step 3b). Measured on Dust 1947 (seed 0, the report's
   model): alone, Spearman 0.844 / log R² 0.731 and 0.469 among the heroes; joined, 0.846 /
   0.735 and 0.539 (with the reduced-major-axis map and equal weights of the previous
   passes it had agreed less, so it was off). A Zombie, Gorilla or Steel Guard hero joins
   only its kind (L3541, L3661, L3703): where the median squad is not of it, the median squad
   of its armour and kind (:func:`kind_host`; before, it played alone: Dust 1947, seed 0,
   eight heroes such as Markus and Jacob joined to the Gorilla Pioneer Squad, Spearman 0.857
   / log R² 0.762 -> 0.857 / 0.761, heroes 0.620 -> 0.622: kept as the rule, not for the
   agreement). A hero that cannot join (a Loner or Superhuman, L3581, L3671; one of those
   kinds with no squad of its kind and armour, such as Gregor, I4; a hero with a rule the
   engagements play only for a lone hero, :data:`LONE_RULES`: Assassin, First Strike,
   Assault Shield) plays alone. All
   engagements of one card run from the card's own random stream (``SeedSequence`` keyed by
   the seed and the card's name; one kernel call, or pieces carried on when the per-game
   records would exceed :data:`RECORD_BYTES`), so a card's figures do not depend on which
   other cards are computed, on the thread count or on the order. Each engagement is one
   per-game record of :func:`dustsim.play.duel_kernel.play_games` reduced by
   :mod:`dustsim.engines.montecarlo` (the one accounting loop).
3. **Strength** (:func:`strengths`). From an engagement of card X with representative O:
   ``D_XO``, the mean fraction of O's starting strength (models + hero track + damage track)
   that X destroys, averaged over the distances, and ``D_OX`` the other way round. Under
   Lanchester's square law a unit of firepower ``a`` and health ``h`` is worth ``a x h`` per
   unit squared; over a short engagement ``D_XO / D_OX`` estimates
   ``(a_X h_X) / (a_O h_O)``, saturating when one side is wiped out. So
   ``y_XO = log((r(D_XO) + EPS) / (r(D_OX) + EPS))`` with ``r(D) = -log(1 - D)`` the attrition
   rate behind a lost fraction (:func:`attrition_rate`; issue 24: a fraction saturates at 1,
   so a card that wipes its opponent out in one turn scored like one that needs four; ``D``
   clipped at ``1 - 1/(2 x games)``; for small losses ``r(D) = D``) and ``EPS`` =
   :data:`EPS` keeping a card that cannot be hurt, or cannot hurt, finite, and the
   **strength** of X is the field-weighted mean of ``y_XO + s_O`` over the representatives it
   could play, where ``s_O`` is O's own strength against the field (normalised so that the
   field's weighted mean strength is 0; with every pairing played the ``s_O`` terms
   cancel). It is a log ratio: +0.7 means the card trades
   about twice as well as the field, at one unit each. Monte Carlo error: the delta method on
   the per-distance means (``strength_se``).
3b. **Battles, and the strength of play** (:mod:`dustsim.review.battle_value`;
   ``ValueSettings(battles=True)``, off by default in the library; ``dustsim report`` and
   ``whatif`` run them with ``battle_cards="needed"``: :func:`battle_needed`). Each card also
   joins :data:`ValueSettings.battle_hosts` legal host armies of its bloc (platoon charts,
   heroes joined to a squad they may join) and plays each one's opponent with and without
   it on common random numbers; its **battle value** ``v`` is the victory points (1947 L368)
   its presence adds per battle (what it destroys and what it saves the rest of its army;
   its own loss is not charged, which would charge it its printed price). The **strength**
   that step 4 maps is then the **precision-weighted** mean of the engagement strength and
   ``log v``, each standardised over the cards of the fit that have both (mean 0, sd 1), each
   weighted by the inverse of its squared standard error (the engagements' Monte Carlo error;
   the battles' error over the host armies, so the spread from army to army counts); the
   battles' share is ``battle_weight``. Nothing here is fitted to printed costs. A card with
   one of the two keeps that one. Measured (Dust 1947, seed 0, infantry in cover, the
   calibration line of step 4): equal weights Spearman 0.842 / log R² 0.720, precision
   weights 0.852 / 0.740. The battles' standard error is ~20 times the engagements' (median
   0.40 against 0.019 in standard units), so where a card has both the battles move its
   strength little (median weight 0.2 %): one card's effect on a 100 AP battle is measured
   too coarsely by 32 armies to correct a precise one-on-one figure, and it counts where the
   engagements cannot value the card. The engagement strength is kept as
   ``strength_engagements``; the battles alone, mapped by their own power law, as
   ``battle_fair_ap`` (``battle_*`` columns). A card
   whose main roles are all command roles the battles play (an officer's Rally and Get
   Moving of other units, a General: ``battle_value.BATTLE_PLAYED_ROLES``) is valued from
   the battles alone and judged (``valued_by``; out of the fit); one whose command role sits
   beside a main role no engine plays (The Desert Fox's own rule, Fumiko's Tactician,
   ``battle_command_part``) is valued from the battles too, as a lower bound naming the rest
   (step 5b; before, it was its joined engagements' lower bound, with nobody to command:
   Spearman 0.850 / log R² 0.752 -> 0.860 / 0.767, heroes 0.544 -> 0.628). A battle
   value not above its own standard error (nor ``battle_value.V_MIN``) is "no measurable
   effect" and not used. Why combine: the engagements are precise but saturate (a log ratio
   of one-on-one trades) and play heroes alone; the battles value heroes joined and a
   card's effect on the army around it, but one card's effect on a 50 AP battle is noisy.
   Checked in ``benchmarks/value_model.py`` (Spearman and log R² against the printed costs
   of the engagements alone, the battles alone, the combination and the consistency lens,
   and the median fair/printed of the cards above 40 AP and at 2-3 AP): on Dust 1947, seed
   0, engagements alone 0.875 / 0.744 over 406 cards (75.7 %); combined, 32 host armies of
   50 AP: 0.859 / 0.718; of 100 AP (the default since, ``battle_value`` step 3b): 0.874 /
   0.755 over 440 cards (82.1 %: the 34 command cards judged from the battles), and 0.880 /
   0.769 over the same 406 cards as the engagements. The battles of every card cost ~150 s
   of CPU, too much for the report's budget; with precision weights they move a card that
   has both figures little, so the report plays battles only for the cards the engagements
   cannot value and for the reference field, which sets the common scale (~25 s of CPU).
3c. **Battles on the grid battlefield** (:mod:`dustsim.review.board_value`;
   ``ValueSettings(board=True)`` with battles; **off by default**: measured, it does not
   help). A card whose main roles only the board plays (the skills table's board gap is not
   its line gap: transports with passengers, Artillery Observers, Mechanics, command
   vehicles, Spies, Medics, own rules such as Follow Me; pilots keep the same gap on both
   and stay lower bounds) joins host armies on scenario 101 with and without it, at a
   stand-in AP (its fair AP so far, never its printed cost), and a measurable board value
   becomes its strength (:func:`_combine_board`: the log value standardised on the reference
   field's board values) instead of a lower bound. Measured (Dust 1947, seed 0, the report's
   model): Spearman 0.862 / log R² 0.770 -> 0.847-0.861 / 0.743-0.766 over seven settings
   (lower bounds 123 -> 69-109; heroes 0.633 -> 0.580-0.633, aircraft 0.725 -> 0.545-0.735):
   a card's board value has a standard error of 1.3-6 AP against cards of 2-14 AP at what
   the report can afford (47-83 s of CPU), and it depends on the AP the card plays at (the
   kernel reads AP in its target choice); the table is in that module's docstring.
4. **Fair points** (:func:`fit_mapping`). The only fitted parameters: one monotone mapping
   ``log AP = a + b x strength`` for the whole edition (always the whole edition, also when a
   report shows a subset), fitted as a **calibration line** (issue 24's saturation): the
   strength is regressed on log AP by least squares, ``strength = c + d x log AP + e``, and
   the line is inverted (``b = 1/d``, ``a = -c/d``; :func:`calibration_line`). Why: the
   printed cost is the scale the fair cost is read on, and everything the model of play leaves
   out (rules not played, the field, Monte Carlo error, and the card's own mispricing) is in
   the *strength*'s error ``e``, not in the price: this is the errors-in-variables (Deming)
   fit with all the error variance on the strength (its ``lambda -> inf`` limit; the classic
   calibration or inverse regression, Eisenhart 1939). A least-squares fit of log AP on
   strength (``E[log AP | strength]``) is attenuated by the strength's error (regression
   dilution: at a given printed cost the suggested costs are shrunk toward the mean by
   ``r²``), and the reduced
   major axis used before (``b = sd(log AP) / sd(strength)``) still leaves the suggested
   cost of a card at a given printed cost pulled toward the mean by ``r``; the calibration
   line makes the median fair/printed about 1 in every band of printed cost where the
   strength grows linearly with log AP (the issue's test at > 40 AP and at 2-3 AP), at the
   price of suggested costs that spread ``1/r`` times wider than the printed ones. A
   monotone equipercentile map was not taken: it is the reduced major axis made non-linear
   (same shrinkage at a given printed cost) and maps the strongest card onto the highest
   price by construction. Measured on Dust 1947 (seed 0, engagements and battles): fair/printed
   at > 40 AP 0.50 -> 0.59, at 2-3 AP 1.77 -> 1.55, Spearman unchanged (a monotone map), log R²
   0.698 -> 0.703 (the joined heroes' differences). The fit uses the cards with a
   modelled value (step 5) and a cost. ``fair_ap = exp(a + b s)``; the band is a 90 %
   prediction band in log AP from the Monte Carlo error of ``s``, the fit's parameter
   uncertainty (bootstrap over cards, :data:`BOOTSTRAP` resamples) and the scatter of the
   printed costs about the mapping (what the model leaves out: a verdict means the card is off
   by more than the model usually is), widened by half an AP for whole-AP printing.
   Verdicts: *under-costed* below the band, *over-costed* above it, *in band*; cards whose
   value lies mainly in an unmodelled role get *not judged*, cards that cannot play get *no
   value*. Fit quality: n, Spearman rank correlation and R² (squared Pearson correlation of
   log suggested and log printed AP).
5. **Not modelled** (:func:`not_modelled`). A card's skills and weapon keywords that change
   its worth but that the engagements do not play are named per card by the table
   :data:`ROLES` (naming, never a weight). Roles marked *main* (Artillery Observer,
   transport / airlift, command: Officer, Command Squad / Vehicle, General; piloting heroes,
   Medic, Mechanic, Spy, air traffic control, radar, jamming) carry most of a card's worth:
   such cards are kept out of the verdicts and of the fit, and listed as such
   (``mainly_unmodelled``), as are cards with no weapon of their own that have an unmodelled
   rule (all their worth is in it). A **rule of the card's own that no engine plays** (not in
   :data:`ROLES` nor played: Master Deceiver, Sibling, Dazzling Speed, Tactician, ...;
   ``rule not played: NAME``), and so is a named special rule of :data:`ROLES` that no
   engine plays (``special rule``: Follow Me, Red Banner, Resurrection, Possessed, ...)
   (issue 24: the ten worst per AP held such cards, scored as if the rule were worthless):
   a card's own rule is what it is priced for, and how much of the price it carries is
   unknown. The convention reads an unplayed rule as worth something (a drawback such as
   Mindless would make the figure an upper bound instead; it is named either way). Platoon
   advantages are never part of a card's figure.

5b. **Judged on what it plays** (issue 24: every card the engine can play is judged). A card
   with a main role the engagements and battles do not play that still plays (it has a
   weapon of its own; a transport, an Artillery Observer, a Mechanic, a pilot hero alone, a
   Spy, ...) is judged on what it plays, the role named, and its fair cost is a **lower
   bound** (``lower_bound``): its verdict is *under-costed* where even that bound is above the
   printed cost's band, else *lower bound* (never *over-costed* or *in band*: the unplayed
   role may be worth the difference). Lower bounds stay out of the fit and out of the worst
   per AP. A card that must join a unit (a Commissar, 1947 L3477-3479) is valued from the
   battles alone, joined to a squad of its armour (``battle_value.joined_card``): alone it is
   not a legal unit. Its engagements are played joined too (:func:`join_host`: the median
   squad of its bloc and armour it may join), and without battles its fair cost is the
   joined unit's less the squad's, as for a joined hero.
   **A main weapon whose rule the line does not play** (:func:`main_weapon_roles`) makes the
   verdict a lower bound the same way, the rule and the weapon named in
   ``mainly_unmodelled``: the Artillery Area and indirect fire (L3218-3224) and Large
   Ordnance's block (:data:`AREA_WEAPON_RULES`; the line has no squares), and every weapon
   rule the skills table marks ``not played`` (Rail Weapon, Artillery Barrage, Bombing Run,
   Phosphorus, Spores, ...: no rule text, so the line plays only the dice). The **main
   weapon** is read off the card (:func:`main_weapons`): the standard line with the most
   firepower (:func:`line_firepower`: dice x damage x carriers over the 14 columns, each
   weighted by its share of the edition's cards, blast and automatic kills read against the
   columns' reference targets, times the line's reach); a rule on a lesser line (the Mortar
   Truck's mortar beside its four machineguns) is named only. Unlike the main roles above,
   such a card still plays its dice in the battles, so it stays in the reference field's pool,
   the host squads and the host armies (:func:`main_roles` is what keeps a card out of them):
   every other card's engagements and battle values are the same as without these bounds
   (issue 24: making the rules main roles removed 31 cards from the armies and moved the
   others' battle values, Spearman 0.856 -> 0.831). Dust 1947, seed 0: 38 cards (mortar
   squads and vehicles, rocket artillery, rail guns, bombers), lower bounds 123 -> 160
   (with the named pilots below, 164), Spearman 0.856 / log R² 0.762 -> 0.858 / 0.762.
   A hero's **named piloting** (``Pilot: <vehicle>``, :func:`named_pilot_roles`: Sigrid, Luisa)
   is such a role too: the Pilot skill is a main role, and the named pilot of a vehicle pilots
   it as the Pilot skill does (L936-948, L3623-3625), in neither engine
   (:func:`bound_roles_of` gives both kinds).

6. **The second lens** (:mod:`dustsim.review.consistency`): a cross-validated statistical model
   of the printed cost from the card's own numbers and skills (out of fold: a card's own
   price never trains its prediction). Not a model of play; it gives ``consistency_ap`` with
   its interval, and the **evidence** of each verdict: *strong* only where the model of play
   and the lens give the same verdict (``_with_consistency``). ``reason``: one sentence per
   card (what it wins or loses engagements and battles with, what the price list charges
   for cards like it, what is not played).

Static balance tables (:mod:`dustsim.review.analytics`) are kept for reference; this model is
what the report's fair points and verdicts come from.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from dustsim.data.cards import COLUMNS, Card
from dustsim.data.patches import PATCH_FIELDS, load_patch, patched  # noqa: F401 (moved; re-exported)
from dustsim.engines.results import ResultAPI
from dustsim.errors import DustsimError
from dustsim.rules.skills import keyword_rule, played_skill_names, skill_rule

DISTANCES: tuple[int, ...] = (3, 6, 9, 12)
TURNS = 4
EPS = 0.05
TRIALS = 32
PER_CLASS = 3
#: a scenario's length (every Dust 1947 scenario, 101-115: the game-turn track, e.g. L2460-2478)
GAME_TURNS = 8
BOOTSTRAP = 200
BAND = 0.90
ROUNDING_AP = 0.5
#: engagement accumulators per (opponent, distance)
(A_LOST, A_LOST2, B_LOST, B_LOST2, AB_LOST, A_WINS, B_WINS) = range(7)
N_ACC = 7

#: skill (regular expression on the normalised skill name) -> (role, main). ``main`` roles
#: carry most of a card's worth; the others are named but the card is still judged.
ROLES: tuple[tuple[str, str, bool], ...] = (
    (r"artillery observer", "Artillery Observer", True),
    (r"passengers.*", "transport (Passengers)", True),
    (r"airlifter", "airlifter", True),
    (r"sealifter", "sealifter", True),
    (r"medevac", "medevac", True),
    (r"officer", "Officer (command actions)", True),
    (r".*command squad", "command squad actions", True),
    (r"command vehicle", "command vehicle actions", True),
    (r"general", "General", True),
    (r"ace (air )?pilot", "Ace Pilot", True),
    (r"pilot", "pilot (hero piloting a vehicle)", True),
    (r"ace gunner", "Ace Gunner", True),
    (r"(combat )?medic", "Medic", True),
    (r"mechanic.*", "Mechanic", True),
    (r"spy", "Spy", True),
    (r"air traffic control", "air traffic control", True),
    (r"radar", "radar", True),
    (r"jammer", "Jammer", True),
    (r"pilot: .*", "named pilot", False),
    (r"charge", "Charge", False),
    (r"first strike", "First Strike", False),
    (r"assassin", "Assassin", False),
    (r"(improved )?camouflage", "Camouflage", False),
    (r"scout", "Scout", False),
    (r"airborne|air assault|air drop", "Airborne deployment", False),
    (r"smoke launchers", "Smoke Launchers", False),
    (r"advanced reactive fire", "Advanced Reactive Fire", False),
    (r"black ops", "Black Ops", False),
    (r"at the double", "At the Double", False),
    (r"trail ?blazer", "Trailblazer", False),
    (r"dozer blade", "Dozer Blade", False),
    (r"engineer vehicle", "Engineer Vehicle", False),
    (r"raid", "Raid", False),
    (r"follow me|red banner|get moving.*|desert fox|execute|interrogate|take aim|"
     r"resurrection|blutkreuz|quick recovery|devour|sibling: .*|crazy jimmy|"
     r"lesser mythos creatures|mythos creature|possessed|mindless",
     "special rule", True),  # a card's own named rule, not played: main (step 5)
    (r"(expert|fighting spirit|lucky|medal of honor|air alert|savage animal|spotter)([ :].*)?",
     "dice skill not played in engagements", False),
    (r"strong ?point", "Strongpoint", False),
    (r"infantry ace", "Infantry Ace (third action)", False),
)
#: weapon keywords named where the skills table says the engagements do not play them
KEYWORD_ROLES = {"salvo": "Salvo", "volley": "Volley", "wire-guided": "wire-guided re-roll",
                 "smoke": "smoke", "tesla": "Tesla stun", "grapple": "Grapple stun"}
NO_WEAPON = "no weapon of its own (worth in its special rules)"
#: skills the engagements play (or that change nothing in them); any other skill is named
PLAYED_SKILLS = played_skill_names()  # the one table: dustsim.rules.skills (issue 23)
#: a hero's rules the engagements play only while it is alone: joined, its lines fire with
#: the squad's (the gap the skills table names for them: Assassin L3427-3429, First Strike
#: L3523-3525, Assault Shield); such a hero plays its engagements alone (step 2)
LONE_RULES = frozenset({"assassin", "first strike", "assault shield"})
_ROLE_RE = [(re.compile(rf"^(?:{pat})$"), role, main) for pat, role, main in ROLES]


def _norm(s: str) -> str:
    return " ".join(s.strip().lower().replace("-", " ").split())


def skill_role(skill: str) -> tuple[str, bool] | None:
    """The ``(role, main)`` row of :data:`ROLES` a skill falls under, or None."""
    n = _norm(skill)
    for rx, role, main in _ROLE_RE:
        if rx.match(n):
            return role, main
    return None


def not_modelled(card: Card) -> tuple[tuple[str, bool], ...]:
    """The roles of ``card`` the engagements do not play: ``(role, main)`` pairs, in table
    order, from its skills (:data:`ROLES`) and weapon keywords (:data:`KEYWORD_ROLES`)."""
    found: dict[str, bool] = {}
    for s in card.skills:
        n = _norm(s)
        r = skill_rule(s)  # the one table (dustsim.rules.skills): played rules are not named
        # the engagements and the value battles are fought on the line: its gaps count; a
        # rule whose gap is a joined hero's own (LONE_RULES) is played, since such a hero
        # plays alone (step 2)
        gap = r.gap_in("line") if r is not None else ""
        if r is not None and not r.unplayed and (not gap or n in LONE_RULES):
            continue
        hit = skill_role(s)
        if hit is not None:
            role, main = hit
            found[role] = found.get(role, False) or main
        else:
            if n not in PLAYED_SKILLS:
                found[f"rule not played: {s.strip()}"] = True  # its own rule: main (step 5)
            elif r is not None and gap:  # e.g. Large: played on the grid, not on the line
                found.setdefault(f"rule partly played: {s.strip()}: not in {gap}", False)
    standard = [w for w in card.weapons if not w.optional and w.count != 0]
    for w in standard:
        for k in w.keywords:
            r = keyword_rule(k)  # the one table: a keyword the engagement kernel plays
            gap = r.gap_in("line") if r is not None else ""
            if r is not None and not r.unplayed and not gap:  # (Salvo, Volley, Tesla)
                continue  # is not named
            if r is not None and not r.unplayed:
                found.setdefault(f"rule partly played: {r.name}: not in {gap}", False)
            elif k in KEYWORD_ROLES:
                found.setdefault(KEYWORD_ROLES[k], False)
            elif r is not None:  # the weapon's own rule (Rail Weapon): its dice are played
                found.setdefault(f"rule not played: {r.name} ({w.name})", False)
    if not standard and found:  # it cannot attack: its worth is what its rules do
        found[NO_WEAPON] = True
    return tuple(found.items())


def main_roles(card: Card) -> tuple[str, ...]:
    """The unmodelled roles that carry most of the card's worth: they keep the card out of the
    verdicts *and* out of the reference field, the host squads and the battles' host armies
    (its worth is not what it plays). The rules of a card's main weapon that the line does not
    play (:func:`main_weapon_roles`) only make its verdict a lower bound."""
    return tuple(r for r, main in not_modelled(card) if main)


#: weapon rules whose point is squares, which the line has not (the skills table's line gap):
#: the Artillery Area around the target and indirect fire through an Artillery Observer
#: (L3218-3224), Large Ordnance's 2 x 2 block (the table's row); on the line the weapon's dice
#: fire at one target in sight. Rule name -> what the line leaves out
AREA_WEAPON_RULES = {"Artillery": "Artillery Area and indirect fire",
                     "Large Ordnance": "Large Ordnance block of four squares"}


def line_firepower(card: Card, weapon, refs: dict, weights: dict[str, float]) -> float:
    """The firepower of one standard weapon line read off the card (no hit probabilities): over
    the 14 columns, each column weighted by its share of the edition's cards (``weights``,
    :func:`dustsim.army.unit_metrics.column_weights` by cards: the targets the line meets),
    dice x damage x the carriers, a blast icon rolling one die per model of the column's
    reference target (RULES.md §3; ``refs``,
    :func:`dustsim.army.unit_metrics.reference_targets`: an infantry column's median squad,
    one model for a vehicle or aircraft) and an automatic kill read as one model's worth
    (infantry: 1, a vehicle or aircraft: the reference damage track); times the line's reach
    (:func:`dustsim.review.analytics.reach`: the share of the starting distances it fires
    from after one Move). The static offence of the tables, one line at a time and without
    dice odds."""
    from dustsim.review.analytics import reach

    total = 0.0
    for col, cell in zip(COLUMNS, weapon.line, strict=False):
        if not cell.usable or col not in refs:
            continue
        models = refs[col].size if col[0] == "I" else 1
        dice = cell.blast * models if cell.dice is None else cell.dice
        dmg = (1 if col[0] == "I" else refs[col].size) if cell.auto_kill else cell.damage
        total += weights.get(col, 0.0) * dice * dmg * max(weapon.count or 1, 1)
    return total * reach(card, [weapon])


def main_weapons(card: Card, refs: dict, weights: dict[str, float]) -> tuple:
    """The card's main weapon: its standard line (not optional, carried) with the most
    :func:`line_firepower`, all of them on a tie; () without one."""
    std = [w for w in card.weapons if not w.optional and w.count != 0]
    fp = [line_firepower(card, w, refs, weights) for w in std]
    top = max(fp, default=0.0)
    return tuple(w for w, f in zip(std, fp, strict=True) if f == top and top > 0)


def _weapon_rule_gap(keyword: str) -> str | None:
    """What the line leaves out of a weapon rule that carries its weapon's worth: a rule the
    skills table marks ``not played`` (its text unknown or its effect played nowhere: Rail
    Weapon, Artillery Barrage, Bombing Run, ...), or one whose point is squares
    (:data:`AREA_WEAPON_RULES`); None for any other."""
    r = keyword_rule(keyword)
    if r is None:
        return None
    if r.status == "not played":
        return f"{r.name} rule"
    if r.name in AREA_WEAPON_RULES and r.gap_in("line"):
        return AREA_WEAPON_RULES[r.name]
    return None


def main_weapon_roles(card: Card, refs: dict, weights: dict[str, float]) -> tuple[str, ...]:
    """The rules of the card's main weapon (:func:`main_weapons`) whose worth the line does
    not play (:func:`_weapon_rule_gap`), each named with the weapon. They make the card's
    verdict a **lower bound** (its main role is not played where it is valued), but the card
    still plays its dice, so unlike :func:`main_roles` they keep it in the reference field and
    the host armies (issue 24: making them main roles removed 31 cards from the battles'
    armies and moved every other card's battle value)."""
    if not any(_weapon_rule_gap(k) for w in card.weapons for k in w.keywords):
        return ()
    out: dict[str, None] = {}
    for w in main_weapons(card, refs, weights):
        for k in w.keywords:
            gap = _weapon_rule_gap(k)
            if gap is not None:
                out[f"{gap} of its main weapon ({w.name})"] = None
    return tuple(out)


def named_pilot_roles(card: Card) -> tuple[str, ...]:
    """A hero's ``Pilot: <vehicle>`` (L3623-3625: that vehicle may be piloted by this hero
    only; piloting, L936-948): its piloting, which neither the engagements nor the battles
    play (the battles pilot only heroes with the Pilot or Ace Pilot skill), as for a hero
    with the Pilot skill. On a vehicle the same words only restrict who pilots it (it may be
    fielded without one): nothing there."""
    if card.kind != "hero":
        return ()
    return tuple(f"piloting of its own vehicle ({s.strip()})" for s in card.skills
                 if _norm(s).startswith("pilot: "))


def bound_roles_of(cards: Iterable[Card]) -> dict[str, tuple[str, ...]]:
    """The roles that make a card's verdict a lower bound without keeping it out of the
    reference field's pool, the host squads and the host armies (step 5b): the rules of its
    main weapon the line does not play (:func:`main_weapon_roles`, read against the edition's
    reference targets and its columns' shares of its cards; ``cards``: one edition) and a
    hero's named piloting (:func:`named_pilot_roles`); only the cards that have some."""
    from dustsim.army.unit_metrics import column_weights, reference_targets

    cards = list(cards)
    refs = weights = None
    if any(_weapon_rule_gap(k) for c in cards for w in c.weapons for k in w.keywords):
        refs, weights = reference_targets(cards), column_weights(cards, by="cards")
    out = {}
    for c in cards:
        roles = (*(main_weapon_roles(c, refs, weights) if refs is not None else ()),
                 *named_pilot_roles(c))
        if roles:
            out[c.name] = roles
    return out


def fingerprint(card: Card) -> str:
    """Stable hash of what the engagements see of a card (everything but cost and sources)."""
    keep = ("name", "edition", "kind", "armour", "models", "damage_track", "move",
            "march_move", "skills", "size", "weapons")
    text = repr(tuple(getattr(card, k) for k in keep))
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


def _stream_key(name: str) -> list[int]:
    d = hashlib.blake2b(name.encode("utf-8"), digest_size=16).digest()
    return [int.from_bytes(d[i:i + 4], "little") for i in range(0, 16, 4)]


@dataclass(frozen=True)
class ValueSettings:
    """The knobs of the model (defaults are the documented model)."""

    trials: int = TRIALS  # engagements per pairing and distance
    seed: int = 0
    distances: tuple[int, ...] = DISTANCES
    turns: int = TURNS
    eps: float = EPS
    threads: int | None = None
    per_class: int = PER_CLASS  # representatives per armour class
    join_heroes: bool = True  # play heroes joined to a host squad (step 2, measured)
    infantry_cover: bool = True  # infantry of both sides fights from cover (step 2)
    ration_game: bool = True  # ammunition and once-per-game skills rationed (step 2)
    battles: bool = False  # value from battles (dustsim.review.battle_value) combined in
    battle_hosts: int = 32  # host armies per bloc (battle rows carry their own settings key)
    battle_games: int = 24  # games per pairing (with and without the card)
    battle_budget: float = 100.0  # AP of each host army and opponent (battle_value.BUDGET)
    #: which cards play battles: "all", or "needed" (:func:`battle_needed`: the cards the
    #: engagements cannot value and the reference field, which puts both scales on one)
    battle_cards: str = "all"
    #: with ``battles``: the cards whose main roles only the grid battlefield plays (a
    #: transport's passengers, an Artillery Observer, a Mechanic, ...) valued from battles on
    #: the board (:mod:`dustsim.review.board_value`; step 3c). Off: measured, it does not
    #: improve the agreement and costs 47-83 s of CPU (board_value's docstring)
    board: bool = False
    board_hosts: int = 8  # host armies per bloc on the board (board_value.HOSTS)
    board_games: int = 48  # games per pairing on the board (board_value.GAMES)
    board_scenario: str = "101"  # the scenario the board battles play (board_value.SCENARIO)
    board_budget: float = 50.0  # AP of each army on the board (board_value.BUDGET)

    def __post_init__(self) -> None:
        if isinstance(self.trials, bool) or not isinstance(self.trials, int) or not (
                1 <= self.trials <= 10_000_000):
            raise DustsimError("the value model's trials must be an integer from 1 to "
                               f"10000000, got {self.trials!r}", field="--value-trials")
        if not self.distances or any(not 1 <= d <= 200 for d in self.distances):
            raise DustsimError("distances must be 1 to 200 squares", field="distances")
        if not 1 <= self.turns <= 100:
            raise DustsimError("turns must be 1 to 100", field="turns")
        if self.battle_cards not in ("all", "needed"):
            raise DustsimError(f"battle_cards must be 'all' or 'needed', got "
                               f"{self.battle_cards!r}", field="battle_cards")
        if self.board:
            from dustsim.review.board_value import check_settings

            check_settings(self.board_hosts, self.board_games, self.board_scenario,
                           self.board_budget)

    @property
    def key(self) -> str:
        """What the engagement figures depend on (a cached table is reused only if equal)."""
        return (f"t{self.trials}s{self.seed}d{','.join(map(str, self.distances))}"
                f"T{self.turns}k{self.per_class}j{int(self.join_heroes)}"
                f"c{int(self.infantry_cover)}a{2 * int(self.ration_game)}")


@dataclass(frozen=True)
class Opponent:
    """One representative of the reference field."""

    name: str
    column: str
    weight: float
    n_class: int
    class_ap: float


def _ruleset(edition: str) -> str | None:
    from dustsim.play.duel import DUEL_RULESETS
    from dustsim.rules.rulesets import DEFAULT_RULESET_FOR_EDITION

    rs = DEFAULT_RULESET_FOR_EDITION.get(edition)
    return rs if rs in DUEL_RULESETS else None


def why_unplayable(card: Card) -> str | None:
    """Why a card cannot take part in an engagement (None if it can)."""
    from dustsim.rules.attack import target_from_card

    if _ruleset(card.edition) is None:
        return f"no engagement rules for {card.edition}"
    if card.move is None:
        return "move unknown"
    try:
        target_from_card(card)
    except DustsimError as exc:
        return exc.message
    return None


def reference_field(cards: Iterable[Card], per_class: int = PER_CLASS) -> tuple[Opponent, ...]:
    """The representatives (module docstring, step 1) of one edition's cards; with
    ``per_class`` k > 1, the cards at the (i + 1/2)/k quantiles of AP in each class, sharing
    the class's weight."""
    cards = list(cards)
    tot = {c: 0.0 for c in COLUMNS}
    for c in cards:
        if c.armour in tot and c.ap:
            tot[c.armour] += c.ap
    total = sum(tot.values())
    out = []
    for col in COLUMNS:
        pool = sorted((c for c in cards if c.armour == col and c.ap and not main_roles(c)
                       and why_unplayable(c) is None), key=lambda c: (c.ap, c.name))
        if not pool or total <= 0:
            continue
        k = min(per_class, len(pool))
        picks = dict.fromkeys(pool[(len(pool) - 1) // 2] if k == 1 else
                              pool[int((i + 0.5) / k * len(pool))] for i in range(k))
        for rep in picks:
            out.append(Opponent(rep.name, col, tot[col] / len(picks), len(pool), tot[col]))
    s = sum(o.weight for o in out)
    return tuple(replace(o, weight=o.weight / s) for o in out)


# -- the batched kernel ---------------------------------------------------------------------------
_KERNEL = None
#: per-game records of one card's engagements held at once (bytes); above it the engagements
#: are played block by block in pieces (the same stream, the same sums)
RECORD_BYTES = 32 << 20


def _kernel():
    """The batch runner of :mod:`dustsim.play.duel_kernel` (imported on first use: importing
    this module stays light), compiled at install where it was (:mod:`dustsim.engines.aot`)."""
    global _KERNEL
    if _KERNEL is not None:
        return _KERNEL
    from dustsim.engines.aot import entry
    from dustsim.play import duel_kernel as K

    _KERNEL = (entry(K.play_pairs), entry(K.pack_pair), entry(K.play_games), K.G_LEFT)
    return _KERNEL


def _engagement_outcomes():
    """What the value model keeps of an engagement (:mod:`dustsim.engines.montecarlo`): the
    fraction of its starting strength each side lost, and the winner."""
    from dustsim.engines.montecarlo import Outcomes

    return Outcomes(("lost_unit", "lost_opp", "winner"), sums=("lost_unit", "lost_opp"),
                    products=(("lost_unit", "lost_unit"), ("lost_opp", "lost_opp"),
                              ("lost_unit", "lost_opp")),
                    counts=((("winner",), (3,)),))


def _fractions(games: np.ndarray, s0, s1, g_left: int) -> np.ndarray:
    """Per-game records -> (fraction lost by side A, by side B, winner)."""
    fa = 1.0 - games[..., g_left] / s0
    fb = 1.0 - games[..., g_left + 1] / s1
    return np.stack([fa, fb, games[..., 0]], axis=-1)


def _play_card(rng, n: int, dists: np.ndarray, stacked: tuple) -> np.ndarray:
    """Every pairing of ``stacked`` (:func:`_stack`) at every distance ``n`` times, from the
    one stream ``rng`` (pairing, then distance, then game): accumulators [pairing,
    distance, N_ACC] (sums of A's and B's lost fraction, their squares and product, wins of A,
    wins of B), each a sum in game order (:mod:`dustsim.engines.montecarlo`)."""
    play_pairs, pack_pair, play_games, g_left = _kernel()
    units = stacked[0]
    P, D = units.shape[0], dists.shape[0]
    from dustsim.play import duel_layout as L

    start = units[:, :, L.U_MODELS] + units[:, :, L.U_HERO] + units[:, :, L.U_SINGLE]
    s0 = np.maximum(start[:, 0], 1).astype(float)[:, None, None]
    s1 = np.maximum(start[:, 1], 1).astype(float)[:, None, None]
    oc = _engagement_outcomes()
    ap = np.zeros(2)
    cols = g_left + 2
    if P * D * n * cols * 8 <= RECORD_BYTES:  # everything in one kernel call
        games = np.zeros((P, D, n, cols))
        play_pairs(rng, n, dists, *stacked, ap, games)
        t = oc.tally(_fractions(games, s0, s1, g_left))
    else:  # block by block, in pieces carried on (the same stream and sums)
        piece = max(1, RECORD_BYTES // (cols * 8))
        buf = np.zeros((min(piece, n), cols))
        parts = []
        for p in range(P):
            for di in range(D):
                m = pack_pair(p, dists[di], *stacked[:-1])
                t = None
                for lo in range(0, n, piece):
                    k = min(piece, n - lo)
                    play_games(rng, k, m, stacked[-1][p], ap, buf[:k])
                    t = oc.tally(_fractions(buf[:k], s0[p, 0, 0], s1[p, 0, 0], g_left), t)
                parts.append(t)
        t = _stack_tallies(parts, P, D)
    out = np.zeros((P, D, N_ACC), float)
    out[..., 0] = t.sum("lost_unit")
    out[..., 1] = t.product("lost_unit")
    out[..., 2] = t.sum("lost_opp")
    out[..., 3] = t.product("lost_opp")
    out[..., 4] = t.product("lost_unit", "lost_opp")
    out[..., 5] = t.count("winner")[..., 0]
    out[..., 6] = t.count("winner")[..., 1]
    return out


def _stack_tallies(parts: list, P: int, D: int):
    """Tallies of blocks (pairing-major) as one tally with axes [pairing, distance]."""
    from dustsim.engines.montecarlo import Tally

    first = parts[0]
    return Tally(first.n,
                 {k: np.array([t.sums[k] for t in parts]).reshape(P, D) for k in first.sums},
                 {k: np.array([t.products[k] for t in parts]).reshape(P, D)
                  for k in first.products},
                 {k: np.array([t.counts[k] for t in parts]).reshape(P, D, -1)
                  for k in first.counts})


def _rng(seed_seq: np.random.SeedSequence):
    """The kernels' generator for one card's stream (the inline state where the kernels
    have one, else a NumPy Generator)."""
    try:
        from dustsim.engines.rng import state
    except ImportError:
        return np.random.Generator(np.random.PCG64(seed_seq))
    return state(seed_seq)


def _stack(specs) -> tuple:
    """Pad the pairings' arrays to one shape (the kernel slices each back)."""
    P = len(specs)
    W = max(max(s.weapons.shape[0] for s in specs), 1)
    units = np.stack([s.units for s in specs])
    nw = np.array([s.weapons.shape[0] for s in specs], np.int64)
    wpn = np.zeros((P, W, specs[0].weapons.shape[1]), np.int64)
    gdice = np.zeros((P, W, 2), np.int64)
    gblast = np.zeros((P, W, 2), np.int64)
    groups = np.zeros((P, W, 2, 2, specs[0].groups.shape[3]), np.int64)
    for p, s in enumerate(specs):
        k = s.weapons.shape[0]
        wpn[p, :k] = s.weapons
        gdice[p, :s.gdice.shape[0]] = s.gdice
        gblast[p, :s.gblast.shape[0]] = s.gblast
        groups[p, :s.groups.shape[0]] = s.groups
    tspec = np.stack([s.tspec for s in specs])
    cfg = np.stack([s.config for s in specs])
    value = np.stack([s.value for s in specs])
    return units, wpn, nw, gdice, gblast, groups, tspec, cfg, value


def host_squads(cards: Iterable[Card]) -> dict[str, str]:
    """The squad a hero of each infantry armour joins (module docstring, step 3): the
    median-AP playable squad of that armour whose value is modelled (lower median, ties by
    name)."""
    out = {}
    cards = list(cards)
    for col in COLUMNS[:4]:
        pool = sorted((c for c in cards if c.armour == col and c.kind == "squad" and c.ap
                       and not main_roles(c) and why_unplayable(c) is None),
                      key=lambda c: (c.ap, c.name))
        if pool:
            out[col] = pool[(len(pool) - 1) // 2].name
    return out


_JOIN_HOSTS: dict[tuple, Card | None] = {}


def join_host(card: Card, edition_cards: Iterable[Card]) -> Card | None:
    """The squad a card that must join a unit (a Commissar, L3477-3479) joins in its
    engagements: the median-AP playable squad of its bloc and armour it may join whose value
    is modelled (lower median, ties by name); None if there is none."""
    from dustsim.review.battle_value import _may_join

    cards = list(edition_cards)
    key = (card.name, card.armour, tuple(sorted(fingerprint(c) for c in cards
                                                if c.armour == card.armour)))
    if key not in _JOIN_HOSTS:
        pool = sorted((c for c in cards if c.ap and c.bloc == card.bloc
                       and _may_join(card, c) and not main_roles(c)
                       and why_unplayable(c) is None), key=lambda c: (c.ap, c.name))
        _JOIN_HOSTS[key] = pool[(len(pool) - 1) // 2] if pool else None
    return _JOIN_HOSTS[key]


def kind_host(card: Card, edition_cards: Iterable[Card]) -> Card | None:
    """The squad a Zombie, Gorilla or Steel Guard hero joins in its engagements when its
    armour's median squad (:func:`host_squads`) is not of its kind (it joins only its kind,
    L3541, L3661, L3703): the median-AP playable squad of its armour and kind whose value is
    modelled (lower median, ties by name); None if there is none (it plays alone)."""
    from dustsim.review.battle_value import may_join_kind

    cards = list(edition_cards)
    key = ("kind", card.name, card.armour, tuple(sorted(fingerprint(c) for c in cards
                                                        if c.armour == card.armour)))
    if key not in _JOIN_HOSTS:
        pool = sorted((c for c in cards if c.armour == card.armour and c.kind == "squad"
                       and c.ap and may_join_kind(card, c) and not main_roles(c)
                       and why_unplayable(c) is None), key=lambda c: (c.ap, c.name))
        _JOIN_HOSTS[key] = pool[(len(pool) - 1) // 2] if pool else None
    return _JOIN_HOSTS[key]


#: once-per-game skills (rationed like ammunition, :func:`rationed`): Fighting Spirit
#: L3519-3521, Lucky L3583-3585, Smoke Launchers / Grenades L3651-3653. Not rationed: a
#: Psychic Scream line (the duel compiler gives it one shot whatever the card prints)
GAME_ONCE = frozenset({"fighting spirit", "lucky", "smoke launchers", "smoke grenades"})


def rationed(card: Card, turns: int = TURNS, low: bool = False) -> Card:
    """The card with what lasts the whole game rationed to an engagement of ``turns`` turns,
    its share ``p`` of a game of :data:`GAME_TURNS` turns (module docstring, step 2): each
    limited-ammunition weapon (L3288) carries ``k x p`` of its ``k`` boxes and a
    once-per-game skill (:data:`GAME_ONCE`) is there with probability ``p``. ``low``: the
    boxes rounded down and the once-per-game skills gone, else the boxes rounded up and the
    skills kept; half the engagements play each (exactly the share at ``p`` = 1/2)."""
    share = min(turns, GAME_TURNS) / GAME_TURNS
    if share >= 1:
        return card
    rnd = math.floor if low else math.ceil
    weapons = tuple(replace(w, ammo=rnd(w.ammo * share)) if w.ammo else w
                    for w in card.weapons)
    skills = tuple(x for x in card.skills if not (low and _norm(x) in GAME_ONCE))
    if weapons == card.weapons and skills == card.skills:
        return card
    return replace(card, weapons=weapons, skills=skills)


def _side(card: Card, host: Card | None, cover: bool = False, ration: int | None = None,
          low: bool = False):
    """The unit the card plays as: joined to its host squad when it is a hero that can join;
    ``ration``: the engagement's turns, to ration what lasts the game (:func:`rationed`,
    ``low`` its rounded-down half)."""
    from dustsim.play.duel import DuelUnit, join_hero
    from dustsim.review.battle_value import joined_card, must_join

    if ration is not None:
        card = rationed(card, ration, low)
        host = rationed(host, ration, low) if host is not None else None
    cover = cover and card.armour_type == "I"
    if host is not None and must_join(card):  # a Commissar plays as part of its unit
        return DuelUnit(joined_card(host, card), cover=cover)
    if host is not None and card.kind == "hero" and host.name != card.name:
        try:
            return join_hero(card, host, cover=cover)
        except DustsimError:
            pass
    return DuelUnit(card, cover=cover)


def _card_row(card: Card, opponents: list[Card], st: ValueSettings,
              host: Card | None = None) -> tuple[np.ndarray, list]:
    """One card against the given opponents: accumulators [opponent, distance, N_ACC] and
    the notes of each compiled pairing (one kernel call, the card's own stream)."""
    from dustsim.play.duel import compile_duel

    ruleset = _ruleset(card.edition)
    ration = st.turns if st.ration_game else None
    halves = [False]  # the rounded-up half (all of it without rationing), then the other
    if ration is not None and any(rationed(c, ration, True) != rationed(c, ration) for c in (
            card, *opponents, *(() if host is None else (host,)))):
        halves.append(True)
    stacks, notes, sides = [], [], []
    for low in halves:
        side = _side(card, host, st.infantry_cover, ration, low)
        specs = []
        for i, opp in enumerate(opponents):
            other = _side(opp, None, st.infantry_cover, ration, low)
            if low and sides[i] == (side, other):  # nothing rationed in this pairing
                specs.append(stacks[0][i])
                continue
            spec = compile_duel([side], [other], ruleset=ruleset,
                                distance=st.distances[0], turns=st.turns)
            specs.append(spec)
            if not low:
                sides.append((side, other))
                notes.append(tuple(n for n in spec.notes if n.startswith(f"{card.name}:")
                                   or n.startswith(f"{side.name}:")))
        stacks.append(specs)
    out = np.zeros((len(opponents), len(st.distances), N_ACC), float)
    if opponents:
        rng = _rng(np.random.SeedSequence([st.seed, *_stream_key(card.name)]))
        dists = np.asarray(st.distances, np.int64)
        n_high = -(-st.trials // len(halves))
        for specs, n in zip(stacks, (n_high, st.trials - n_high), strict=False):
            if n > 0:  # the accumulators are sums: the two halves add up
                out += _play_card(rng, n, dists, _stack(specs))
    return out, notes


_ROWS: dict[tuple, pd.DataFrame] = {}  # memo of one process: (settings, card, opponents) -> rows
_ROWS_MAX = 50_000


def clear_cache() -> None:
    """Forget the engagement rows memoised in this process."""
    _ROWS.clear()


def engagements(cards: list[Card], field_: tuple[Opponent, ...], edition_cards: list[Card],
                settings: ValueSettings | None = None, *, previous: pd.DataFrame | None = None,
                hosts: dict[str, str] | None = None, progress: bool = False,
                client=None) -> pd.DataFrame:
    """Tidy table: card x representative x distance with the engagement sums (step 2).

    Rows of ``previous`` whose card and opponent fingerprints and settings match are reused
    (a patch or whatif recomputes only what it changed), as are rows computed earlier in this
    process (a pure function of the card, the opponents and the settings). Cards that cannot
    play get one row with ``why`` set and no figures. ``client``: a Dask client whose
    workers play the cards (:data:`DASK_TASKS_PER_WORKER` batches per worker); every card
    draws from its own stream, so the table is bitwise the same wherever it ran."""
    st = settings or ValueSettings()
    by_name = {c.name: c for c in edition_cards}
    opps = [by_name[o.name] for o in field_]
    opp_fp = {o.name: fingerprint(o) for o in opps}
    if hosts is None:
        hosts = host_squads(edition_cards) if st.join_heroes else {}

    from dustsim.review.battle_value import may_join_kind, must_join

    def host_of(card: Card) -> Card | None:
        if must_join(card):  # always joined (step 5b): the median squad it may join
            return join_host(card, edition_cards)
        h = by_name.get(hosts.get(card.armour or "", ""))
        if h is not None and not may_join_kind(card, h):  # Zombie, Gorilla, Steel Guard
            h = kind_host(card, edition_cards)  # heroes join only their kind (L3541, L3661,
        if h is None:  # L3703): the median squad of it, alone where there is none
            return None
        if any(_norm(x) in LONE_RULES for x in card.skills):  # rules the engagements play
            return None  # only for a hero alone (joined, its lines fire with the squad's)
        return h if _side(card, h).hero is not None else None

    def unit_fp(card: Card) -> str:
        h = host_of(card)
        return fingerprint(card) + ("+" + fingerprint(h) if h is not None else "")
    reuse: dict[str, pd.DataFrame] = {}
    if previous is not None and len(previous):
        prev = previous[previous["settings"] == st.key]
        for name, g in prev.groupby("unit", sort=False):
            reuse[name] = g
    todo, parts = [], {}
    for card in cards:
        why = why_unplayable(card)
        if why is not None:
            parts[card.name] = pd.DataFrame([{"unit": card.name, "why": why,
                                              "settings": st.key}])
            continue
        g = reuse.get(card.name)
        fp = unit_fp(card)
        memo = _ROWS.get((st.key, card.name, fp, tuple(sorted(opp_fp.items()))))
        if memo is not None:
            parts[card.name] = memo
            continue
        if g is not None and (g["unit_fp"] == fp).all() and set(g["opponent"]) == set(
                opp_fp) and all(g["opponent_fp"] == g["opponent"].map(opp_fp)):
            parts[card.name] = g
            continue
        todo.append(card)

    jobs = [(card, host_of(card), unit_fp(card)) for card in todo]
    bar = None
    if progress and todo:
        from tqdm import tqdm

        bar = tqdm(total=len(todo), desc="value engagements", unit="card", leave=False)
    try:
        for (card, _h, fp), df in zip(jobs, _run_rows(jobs, opps, opp_fp, st, client, bar),
                                      strict=True):
            parts[card.name] = df
            if len(_ROWS) < _ROWS_MAX and (df["why"] == "").all():
                _ROWS[(st.key, card.name, fp, tuple(sorted(opp_fp.items())))] = df
    finally:
        if bar is not None:
            bar.close()
    frames = [parts[c.name] for c in cards if c.name in parts]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


#: Dask tasks per worker for the value engagements (each card draws from its own stream, so
#: the split changes no number; a few tasks per worker keep them busy to the end)
DASK_TASKS_PER_WORKER = 8


def _rows(card: Card, host: Card | None, fp: str, opps: list[Card], opp_fp: dict[str, str],
          st: ValueSettings) -> pd.DataFrame:
    """One card's engagement rows (pure: the same in any thread or process)."""
    try:
        acc, notes = _card_row(card, opps, st, host)
    except DustsimError as exc:
        return pd.DataFrame([{"unit": card.name, "why": exc.message, "settings": st.key}])
    rows = []
    for i, o in enumerate(opps):
        for j, d in enumerate(st.distances):
            r = {"unit": card.name, "host": host.name if host is not None else "",
                 "opponent": o.name, "distance": d,
                 "trials": st.trials, "unit_fp": fp, "opponent_fp": opp_fp[o.name],
                 "settings": st.key, "why": "", "notes": "; ".join(notes[i])}
            r.update({k: acc[i, j, n] for n, k in enumerate(
                ("s_lost_unit", "s2_lost_unit", "s_lost_opp", "s2_lost_opp", "s_lost_both",
                 "wins_unit", "wins_opp"))})
            rows.append(r)
    return pd.DataFrame(rows)


def _rows_batch(jobs: list[tuple], opps: list[Card], opp_fp: dict[str, str],
                st: ValueSettings) -> list[pd.DataFrame]:
    """A Dask task: the rows of a few cards, one after the other."""
    return [_rows(card, host, fp, opps, opp_fp, st) for card, host, fp in jobs]


def _run_rows(jobs: list[tuple], opps: list[Card], opp_fp: dict[str, str], st: ValueSettings,
              client, bar) -> list[pd.DataFrame]:
    """Every job's rows, in job order: on ``client``'s workers, else on threads here."""
    if not jobs:
        return []
    if client is not None:
        from dustsim.engines.dask_runner import Shared, run_tasks

        workers = len(client.scheduler_info().get("workers") or ()) or 1
        size = max(1, -(-len(jobs) // (DASK_TASKS_PER_WORKER * workers)))
        batches = [jobs[i:i + size] for i in range(0, len(jobs), size)]
        done = run_tasks(client, _rows_batch,
                         [(b, Shared(0), Shared(1), Shared(2)) for b in batches],
                         keys=[f"dustsim-value-{i}" for i in range(len(batches))],
                         shared=(opps, opp_fp, st), retries=2,
                         on_result=None if bar is None else (lambda _i, r: bar.update(len(r))))
        return [df for part in done for df in part]
    from concurrent.futures import ThreadPoolExecutor

    from dustsim.engines.montecarlo import default_threads

    _kernel()  # build (or load) once before the threads start
    threads = max(1, min(st.threads or default_threads(), len(jobs)))
    out = []
    with ThreadPoolExecutor(max_workers=threads) as ex:
        for df in ex.map(lambda j: _rows(*j, opps, opp_fp, st), jobs):
            out.append(df)
            if bar is not None:
                bar.update(1)
    return out


def pair_log_ratios(eng: pd.DataFrame, eps: float = EPS) -> pd.DataFrame:
    """Per card and representative: ``y`` (step 3) and its standard error (delta method on
    the per-distance means; the distances are equally likely)."""
    g = eng[eng["why"] == ""] if "why" in eng else eng.iloc[0:0]
    if g.empty:
        return pd.DataFrame(columns=["unit", "opponent", "y", "y_se", "d_unit", "d_opp"])
    from dustsim.engines.montecarlo import covariance, mean_var

    n = g["trials"].to_numpy(float)
    sa, sb = g["s_lost_unit"].to_numpy(float), g["s_lost_opp"].to_numpy(float)
    ma, va = mean_var(sa, g["s2_lost_unit"].to_numpy(float), n)
    mb, vb = mean_var(sb, g["s2_lost_opp"].to_numpy(float), n)
    d = pd.DataFrame({
        "unit": g["unit"].to_numpy(), "opponent": g["opponent"].to_numpy(), "ma": ma,
        "mb": mb, "va": va, "vb": vb,
        "cab": covariance(g["s_lost_both"].to_numpy(float), sa, sb, n), "k": 1.0})
    d["n"] = n
    a = d.groupby(["unit", "opponent"], sort=False).sum()
    k = a["k"]
    fa, fb = a["ma"] / k, a["mb"] / k  # fa: the card's own mean lost fraction
    # attrition rates (step 3): -log(1 - f), f clipped at 1 - 1/(2 x games played)
    top = 1.0 - 0.5 / a["n"]
    ra, rb = attrition_rate(fa.clip(upper=top)), attrition_rate(fb.clip(upper=top))
    ga, gb = 1.0 / (1.0 - fa.clip(upper=top)), 1.0 / (1.0 - fb.clip(upper=top))  # dr/df
    da, db = ra + eps, rb + eps
    var = ((gb / db) ** 2 * a["vb"] + (ga / da) ** 2 * a["va"]
           - 2 * ga * gb * a["cab"] / (da * db)) / k**2
    out = pd.DataFrame({"y": np.log(db / da), "y_se": np.sqrt(var.clip(lower=0)),
                        "d_unit": fb, "d_opp": fa})
    return out.reset_index()


def attrition_rate(f):
    """The attrition rate behind a mean lost fraction ``f`` of an engagement of fixed length:
    ``-log(1 - f)`` (exponential attrition: a unit losing a share ``r`` of what is left per
    unit of time has lost ``1 - exp(-r)``). Unlike the fraction it does not saturate at 1:
    a card that destroys its opponents in one turn instead of three keeps a larger figure
    (issue 24's saturation at the top); for small losses it is the fraction itself."""
    return -np.log1p(-np.asarray(f, float))


def strengths(eng: pd.DataFrame, field_: tuple[Opponent, ...],
              eps: float = EPS) -> pd.DataFrame:
    """Strength and its Monte Carlo error per card (module docstring, step 3)."""
    w = pd.Series({o.name: o.weight for o in field_}, dtype=float)
    y = pair_log_ratios(eng, eps)
    y = y[y["opponent"].isin(w.index)].copy()
    y["w"] = y["opponent"].map(w)
    # the representatives' own strengths (the field's weighted mean is 0)
    ref = y[y["unit"].isin(w.index)]
    s_ref = (ref["w"] * ref["y"]).groupby(ref["unit"]).sum() / ref.groupby("unit")["w"].sum()
    s_ref = s_ref.reindex(w.index).fillna(0.0)
    s_ref -= (w * s_ref).sum()
    y["t"] = y["w"] * (y["y"] + y["opponent"].map(s_ref))
    y["v"] = y["w"] ** 2 * y["y_se"] ** 2
    a = y.groupby("unit", sort=False)[["w", "t", "v"]].sum()
    a["n"] = y.groupby("unit", sort=False).size()
    units = list(dict.fromkeys(eng["unit"])) if len(eng) else []
    why = eng.drop_duplicates("unit").set_index("unit")["why"] if len(eng) else pd.Series()
    out = pd.DataFrame({"unit": units})
    a = a.reindex(units)
    out["strength"] = (a["t"] / a["w"]).to_numpy()
    out["strength_se"] = (np.sqrt(a["v"]) / a["w"]).to_numpy()
    out["opponents"] = a["n"].fillna(0).astype(int).to_numpy()
    out["why"] = [("" if np.isfinite(s) else (why.get(u) or "no engagement"))
                  for u, s in zip(units, out["strength"], strict=True)]
    return out


# -- the mapping ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Mapping:
    """``log AP = a + b x strength`` (the calibration line, module docstring step 4) with its
    bootstrap draws."""

    a: float
    b: float
    n: int
    spearman: float
    r2: float
    boot: tuple[tuple[float, float], ...] = field(default=(), repr=False)
    sd_resid: float = 0.0  # scatter of log AP about the mapping over the fit set

    def fair(self, s) -> np.ndarray:
        return np.exp(self.a + self.b * np.asarray(s, float))

    def band(self, s, se, level: float = BAND) -> tuple[np.ndarray, np.ndarray]:
        from scipy import stats

        s = np.asarray(s, float)
        se = np.nan_to_num(np.asarray(se, float))
        if self.boot:
            ab = np.asarray(self.boot)
            preds = ab[:, :1] + ab[:, 1:] * s[None, :]
            sd_fit = preds.std(axis=0, ddof=1)
        else:
            sd_fit = np.zeros_like(s)
        sd = np.sqrt(sd_fit**2 + (self.b * se) ** 2 + self.sd_resid**2)
        z = stats.norm.ppf(0.5 + level / 2)
        mid = self.a + self.b * s
        return np.exp(mid - z * sd) - ROUNDING_AP, np.exp(mid + z * sd) + ROUNDING_AP


def _rma(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    r = np.corrcoef(x, y)[0, 1]
    b = math.copysign(y.std(ddof=1) / x.std(ddof=1), r)
    return float(y.mean() - b * x.mean()), float(b)


reduced_major_axis = _rma  # (intercept, slope); the static fair points fit this way


def calibration_line(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """``y = a + b x`` from the least-squares line of ``x`` on ``y``, inverted (module
    docstring, step 4: the error is in ``x``, the strength; ``y`` is the printed scale)."""
    d, c = np.polyfit(np.asarray(y, float), np.asarray(x, float), 1)
    if d == 0 or not np.isfinite(d):
        raise DustsimError("the cost mapping needs a strength that changes with the printed "
                           "cost", field="fair points")
    return float(-c / d), float(1.0 / d)


def fit_mapping(strength, ap, *, seed: int = 0, boot: int = BOOTSTRAP) -> Mapping:
    """The one fitted mapping (module docstring, step 4); needs at least 5 cards."""
    from scipy import stats

    s = np.asarray(strength, float)
    y = np.log(np.asarray(ap, float))
    ok = np.isfinite(s) & np.isfinite(y)
    s, y = s[ok], y[ok]
    if len(s) < 5 or s.std() == 0 or y.std() == 0:
        raise DustsimError(f"the cost mapping needs at least 5 cards with a modelled value "
                           f"and a cost, got {len(s)}", field="fair points")
    a, b = calibration_line(s, y)
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(boot):
        i = rng.integers(0, len(s), len(s))
        if s[i].std() > 0 and y[i].std() > 0:
            try:
                draws.append(calibration_line(s[i], y[i]))
            except DustsimError:  # a resample where the strength does not follow the cost
                continue
    rho = float(stats.spearmanr(s, y)[0])
    r2 = float(np.corrcoef(a + b * s, y)[0, 1] ** 2)
    sd_resid = float(np.std(y - (a + b * s), ddof=2))
    return Mapping(a, b, len(s), rho, r2, tuple(draws), sd_resid)


def fit_quality(suggested, printed) -> dict:
    """n, Spearman and log R² (squared Pearson correlation of the logs) of two cost lists;
    also 1 - SSE/SST of log printed about log suggested."""
    from scipy import stats

    x = np.log(np.asarray(suggested, float))
    y = np.log(np.asarray(printed, float))
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if len(x) < 3:
        return {"n": len(x), "spearman": math.nan, "log_r2": math.nan,
                "log_r2_identity": math.nan}
    return {"n": len(x), "spearman": float(stats.spearmanr(x, y)[0]),
            "log_r2": float(np.corrcoef(x, y)[0, 1] ** 2),
            "log_r2_identity": float(1 - ((y - x) ** 2).sum() / ((y - y.mean()) ** 2).sum())}


# -- the whole model ------------------------------------------------------------------------------
@dataclass(frozen=True)
class ValueModel(ResultAPI):
    """Everything one run of the model produced (tables tidy, one row per card).

    Result API: ``summary()`` counts the cards, the judged ones and the verdicts and gives the
    mapping; ``se()`` covers the mapping's ``a`` and ``b`` (bootstrap standard deviation);
    ``to_frame()`` has per card (``unit``) its ``strength`` (with ``strength_se``) and
    ``fair_ap``. No outcome words: the model has no winner.
    """

    table: pd.DataFrame
    engagements: pd.DataFrame
    field: tuple[Opponent, ...]
    mapping: Mapping | None
    settings: ValueSettings
    hosts: dict[str, str] = field(default_factory=dict)
    cards: tuple[Card, ...] = ()
    battles: pd.DataFrame = field(default_factory=pd.DataFrame)  # battle_value rows
    battle_contexts: dict = field(default_factory=dict)  # the armies they were played in
    battle_mapping: Mapping | None = None
    scales: tuple | None = None  # the standardisation of the two strengths (step 3b)
    board: pd.DataFrame = field(default_factory=pd.DataFrame)  # board_value rows (step 3c)
    board_scales: tuple | None = None  # the board values' standardisation (step 3c)

    def quality(self) -> dict:
        """Agreement of suggested and printed cost over the judged cards (joined heroes
        included; they are not in the fit)."""
        d = self.table[self.table["judged"]]
        return fit_quality(d["fair_ap"], d["ap"])

    def lens_quality(self) -> dict[str, dict]:
        """Agreement with the printed costs of each lens over the cards it judges: the
        engagements (:meth:`quality`), the battles (``battle_verdict`` set) and the
        consistency lens (a statistical model of the price list, every priced card)."""
        t = self.table
        out = {"engagements": self.quality()}
        if "battle_verdict" in t:
            b = t[t["battle_verdict"].isin(("over-costed", "under-costed", "in band"))]
            out["battles"] = fit_quality(b["battle_fair_ap"], b["ap"])
        if "consistency_ap" in t:
            c = t[t["consistency_ap"].notna() & (t["ap"].fillna(0) > 0)]
            out["consistency"] = fit_quality(c["consistency_ap"], c["ap"])
        return out
    def to_dict(self) -> dict:
        t = self.table
        d: dict = {"edition": self.cards[0].edition if self.cards else "",
                   "cards": len(t), "judged": int(t["judged"].sum()) if "judged" in t else 0}
        if "verdict" in t:
            for v, n in t["verdict"].value_counts().items():
                d[f"cards_{str(v).replace(' ', '_').replace('-', '_')}"] = int(n)
        if self.mapping is not None:
            d.update(mapping_a=self.mapping.a, mapping_b=self.mapping.b,
                     mapping_n=self.mapping.n, spearman=self.mapping.spearman,
                     r2=self.mapping.r2)
        return d

    def _standard_errors(self) -> dict[str, float]:
        if self.mapping is None:
            return {}
        boot = np.asarray(self.mapping.boot, float).reshape(-1, 2)
        sd = boot.std(axis=0, ddof=1) if len(boot) > 1 else np.array([math.nan, math.nan])
        return {"mapping_a": float(sd[0]), "mapping_b": float(sd[1])}

    def _frame_rows(self) -> list[dict]:
        rows = []
        for r in self.table.to_dict(orient="records"):
            rows.append({"quantity": "strength", "unit": r["unit"], "value": r["strength"],
                         "se": r.get("strength_se")})
            if "fair_ap" in r:
                rows.append({"quantity": "fair_ap", "unit": r["unit"], "value": r["fair_ap"]})
        return rows


def _describe(card: Card, bound_roles: tuple[str, ...] = ()) -> dict:
    """The card's row before play: ``mainly_unmodelled`` its main roles and the roles that
    make its verdict a lower bound (``bound_roles``, :func:`bound_roles_of`)."""
    roles = not_modelled(card)
    return {"unit": card.name, "bloc": card.bloc, "faction": card.faction, "kind": card.kind,
            "armour": card.armour, "ap": card.ap,
            "not_modelled": "; ".join(r for r, _ in roles),
            "mainly_unmodelled": "; ".join([*(r for r, m in roles if m), *bound_roles])}


def value_model(edition_cards: list[Card], settings: ValueSettings | None = None, *,
                previous: pd.DataFrame | None = None, field_: tuple[Opponent, ...] | None = None,
                mapping: Mapping | None = None, hosts: dict[str, str] | None = None,
                progress: bool = False, client=None,
                previous_battles: pd.DataFrame | None = None,
                battle_contexts: dict | None = None,
                battle_mapping: Mapping | None = None,
                scales: tuple | None = None,
                previous_board: pd.DataFrame | None = None,
                board_scales: tuple | None = None) -> ValueModel:
    """Run the model over one edition. ``field_``, ``hosts`` and ``mapping`` default to the
    edition's (a patch passes the unpatched edition's so that before and after compare like
    with like); ``previous`` engagement rows are reused where nothing changed; ``client``:
    play the engagements on a Dask cluster (same table)."""
    st = settings or ValueSettings()
    eds = {c.edition for c in edition_cards}
    if len(eds) != 1:
        raise DustsimError(f"the value model runs on one edition at a time, got "
                           f"{', '.join(sorted(eds)) or 'none'}", field="--edition")
    fld = field_ if field_ is not None else reference_field(edition_cards, st.per_class)
    if hosts is None:
        hosts = host_squads(edition_cards) if st.join_heroes else {}
    wroles = bound_roles_of(edition_cards)  # step 5b: lower bounds, still in the armies
    if _ruleset(next(iter(eds))) is None or not fld:
        tab = pd.DataFrame([_describe(c, wroles.get(c.name, ())) for c in edition_cards])
        tab = tab.assign(strength=math.nan, strength_se=math.nan, opponents=0,
                         why=("no engagement rules for this edition" if not fld else
                              "no playable card with a cost to form a reference field"),
                         notes="", host="",
                         partial=False, judged=False, in_fit=False)
        return ValueModel(_apply(tab, None), pd.DataFrame(), fld, None, st, hosts,
                          tuple(edition_cards))
    eng = engagements(edition_cards, fld, edition_cards, st, previous=previous, hosts=hosts,
                      progress=progress, client=client)
    s = strengths(eng, fld, st.eps)
    tab = pd.DataFrame([_describe(c, wroles.get(c.name, ())) for c in edition_cards]).merge(
        s, on="unit", how="left")
    played = eng[eng["why"] == ""]
    notes = played.groupby("unit")["notes"].agg(
        lambda x: "; ".join(dict.fromkeys(n for v in x for n in v.split("; ") if n)))
    tab["notes"] = tab["unit"].map(notes).fillna("")
    tab["host"] = tab["unit"].map(played.groupby("unit")["host"].first()).fillna("")
    tab["host_engagements"] = tab["host"]  # kept where the battles value it (the sentence)
    tab["partial"] = tab["notes"].str.contains("unknown|no known range|not fired", regex=True)
    bv, ctx, bmap = pd.DataFrame(), {}, None
    if st.battles:
        from dustsim.review import battle_value as B

        ctx = battle_contexts if battle_contexts is not None else B.contexts(
            edition_cards, seed=st.seed, hosts=st.battle_hosts, budget=st.battle_budget)
        only = None if st.battle_cards == "all" else battle_needed(edition_cards, fld)
        bv = B.battle_values(edition_cards, seed=st.seed, hosts=st.battle_hosts,
                             games=st.battle_games, budget=st.battle_budget, contexts_=ctx,
                             previous=previous_battles, progress=progress, only=only)
        bf = B.battle_fair(bv, edition_cards, seed=st.seed, mapping=battle_mapping,
                           bound_roles=wroles)
        bmap = bf.attrs.get("mapping")
        tab = tab.merge(bf[["unit", *BATTLE_COLUMNS]], on="unit", how="left")
    has = tab["strength"].notna() & (tab["ap"].fillna(0) > 0)
    tab["judged"] = has & (tab["mainly_unmodelled"] == "") & ~tab["partial"]
    tab["in_fit"] = tab["judged"] & (tab["host"] == "")
    tab, scales = _combine(tab, scales, edition_cards, wroles)
    if "battle_command" in tab:  # valued from the battles alone: the role is played there
        cmd = tab["battle_command"] & tab["strength"].notna()
        tab.loc[cmd, "mainly_unmodelled"] = ""
        part = tab["valued_by"] == "battles (its command role; the rest not played)"
        if part.any():  # the roles left are what the battles do not play (a lower bound)
            from dustsim.review.battle_value import unplayed_main_roles

            by = {c.name: c for c in edition_cards}
            tab.loc[part, "mainly_unmodelled"] = ["; ".join(unplayed_main_roles(
                by[u], wroles.get(u, ()))) for u in tab.loc[part, "unit"]]
        tab["judged"] = tab["judged"] | (cmd & (tab["ap"].fillna(0) > 0) & ~tab["partial"])
    bd = pd.DataFrame()
    if st.battles and st.board:  # step 3c: the roles only the grid battlefield plays
        from dustsim.review import board_value as BV

        pm = mapping
        if pm is None and tab["in_fit"].sum() >= 5:  # the same fit as below (the board
            pm = fit_mapping(tab.loc[tab["in_fit"], "strength"],  # changes no card of it)
                             tab.loc[tab["in_fit"], "ap"], seed=st.seed)
        standins = {}
        if pm is not None:  # each card's own fair AP so far: its stand-in on the board
            pre = _apply(tab, pm)
            standins = {u: float(f) for u, f in zip(pre["unit"], pre["fair_ap"], strict=True)
                        if np.isfinite(f)}
        bctx = (ctx if st.board_budget == st.battle_budget else
                B.contexts(edition_cards, seed=st.seed, hosts=st.board_hosts,
                           budget=st.board_budget))
        bd = BV.board_values(edition_cards, seed=st.seed, hosts=st.board_hosts,
                             games=st.board_games, scenario=st.board_scenario,
                             budget=st.board_budget, only=board_needed(edition_cards, fld),
                             contexts_=bctx, previous=previous_board, standins=standins,
                             threads=st.threads, progress=progress)
        if len(bd):
            tab = tab.merge(bd[["unit", *BOARD_COLUMNS]], on="unit", how="left")
    tab, board_scales = _combine_board(tab, board_scales, edition_cards)
    if "board_value" in tab:  # valued from the board, where its main roles are played
        on_board = tab["valued_by"].str.startswith("board").to_numpy(bool)
        tab.loc[on_board, "mainly_unmodelled"] = ""
        tab["judged"] = tab["judged"] | (on_board & (tab["ap"].fillna(0) > 0)
                                         & ~tab["partial"])
    # step 5b: a card that plays but whose main role is not played is judged on what it
    # plays, the role named; its fair cost is a lower bound (``lower_bound``)
    tab["lower_bound"] = (tab["strength"].notna() & (tab["ap"].fillna(0) > 0)
                          & ~tab["partial"] & (tab["mainly_unmodelled"] != "")
                          & ~tab["mainly_unmodelled"].str.contains(NO_WEAPON, regex=False))
    tab["judged"] = tab["judged"] | tab["lower_bound"]
    if mapping is None and tab["in_fit"].sum() >= 5:
        mapping = fit_mapping(tab.loc[tab["in_fit"], "strength"],
                              tab.loc[tab["in_fit"], "ap"], seed=st.seed)
    out = _apply(tab, mapping)
    out = _with_consistency(out, edition_cards, st.seed)
    out = _with_reasons(out, pair_log_ratios(eng, st.eps), fld)
    return ValueModel(out, eng, fld, mapping, st, hosts, tuple(edition_cards), bv, ctx, bmap,
                      scales, bd, board_scales)


def battle_needed(cards: Iterable[Card], field_: tuple[Opponent, ...]) -> list[str]:
    """The cards that play battles with ``battle_cards="needed"`` (step 3b): those the
    engagements cannot value (main roles all played in battles: officers, command squads,
    generals; cards that must join a unit) and the reference field's representatives, which
    have both figures and so put the battle scale on the engagements' (:func:`_combine`).
    Where a card has both, the battles weigh little (precision weights), so the others are
    valued as with every card in battles, at a tenth of the CPU."""
    from dustsim.review.battle_value import commands, must_join

    reps = {o.name for o in field_}
    return [c.name for c in cards if c.name in reps or must_join(c) or commands(c)]


def _combine(tab: pd.DataFrame, scales: tuple | None, cards: Iterable[Card] = (),
             bound_roles: dict[str, tuple[str, ...]] | None = None
             ) -> tuple[pd.DataFrame, tuple | None]:
    """The strength of play (module docstring, step 3b): the precision-weighted mean of the
    engagement strength and the log battle value, each standardised (mean 0, sd 1 over the
    cards in the fit that have both; ``scales`` from the unpatched edition when given), each
    weighted by the inverse of its squared standard error (``battle_weight``: the battles'
    share). A card with only one of the two keeps that one (standardised). A card whose main
    roles are all command roles the battles play (``battle_value.BATTLE_PLAYED_ROLES``: an
    officer rallies and moves other units) takes the battle value alone (``battle_command``; in
    a one-on-one engagement it has nobody to command); ``valued_by`` says which lenses a
    strength is from."""
    tab = tab.copy()
    tab["strength_engagements"] = tab["strength"]
    tab["strength_engagements_se"] = tab["strength_se"]
    tab["valued_by"] = np.where(tab["strength"].notna(), "engagements", "")
    if "battle_value" not in tab:
        return tab, scales
    from dustsim.review.battle_value import commands, must_join, unplayed_main_roles

    by = {c.name: c for c in cards}
    main = tab["mainly_unmodelled"] if "mainly_unmodelled" in tab else pd.Series("", tab.index)
    # a command role the battles play: all its main roles (battle_command), or some of them,
    # the rest not played anywhere (battle_command_part: valued from the battles, which play
    # more of it, as a lower bound; step 5b)
    wr = bound_roles or {}  # main weapon rules, named piloting: the battles play neither
    tab["battle_command"] = [bool(m) and u in by and not unplayed_main_roles(
        by[u], wr.get(u, ())) for u, m in zip(tab["unit"], main, strict=True)]
    part = np.array([bool(m) and u in by and commands(by[u]) and bool(unplayed_main_roles(
        by[u], wr.get(u, ()))) for u, m in zip(tab["unit"], main, strict=True)], bool)
    tab["battle_command_part"] = part
    joins = np.array([u in by and must_join(by[u]) for u in tab["unit"]], bool)
    tab["battle_command"] = tab["battle_command"].to_numpy(bool) | joins
    e, e_se = tab["strength"], tab["strength_se"]
    lb, lb_se, scales = _log_values(tab, "battle_value", scales)
    if scales is None:
        return tab, None
    me, se_, mb, sb = scales
    ze, zb = (e - me) / se_, (lb - mb) / sb
    ze_se, zb_se = e_se / se_, lb_se / sb
    cmd = tab["battle_command"].to_numpy(bool)
    # a card that must join a unit, or whose command role is only part of its main roles,
    # keeps its (joined) engagement (host subtracted in _apply) where the battles did not
    # measure it
    cmd = (cmd & ~(joins & zb.isna().to_numpy())) | (part & zb.notna().to_numpy())
    ze, ze_se = ze.mask(cmd), ze_se.mask(cmd)
    hero_joined = np.zeros(len(tab), bool)
    if "host" in tab:  # valued from the battles: its marginal worth, nothing to subtract
        tab.loc[(joins | cmd) & zb.notna().to_numpy(), "host"] = ""
        # a hero played joined in the engagements (``join_heroes``): its strength is the
        # joined unit's, on another footing than its own battle value, so it is valued from
        # the joined engagements alone (the host squad's worth subtracted in _apply; with
        # precision weights its battles would weigh ~0.2 % anyway)
        hero_joined = (tab["host"] != "").to_numpy() & ~joins & ze.notna().to_numpy()
        zb, zb_se = zb.mask(hero_joined), zb_se.mask(hero_joined)
    two = ze.notna() & zb.notna()
    # precision weights: each standardised strength by the inverse of its squared standard
    # error (equal weights where both errors are 0)
    ve, vb = ze_se.fillna(0) ** 2, zb_se.fillna(0) ** 2
    tot = ve + vb
    wb = np.where(tot > 0, ve / tot.where(tot > 0, 1.0), 0.5)
    tab["strength"] = np.where(two, (1 - wb) * ze + wb * zb, ze.fillna(zb))
    tab["strength_se"] = np.where(two, np.sqrt(np.where(tot > 0, ve * vb / tot.where(
        tot > 0, 1.0), 0.0)), ze_se.fillna(zb_se))
    tab["battle_weight"] = np.where(two, wb, np.where(zb.notna() & ze.isna(), 1.0, np.where(
        ze.notna(), 0.0, np.nan)))
    by_battles = np.where(joins, "battles (joined to a unit)",
                          np.where(part, "battles (its command role; the rest not played)",
                                   np.where(cmd, "battles (its command role)", "battles")))
    tab["valued_by"] = np.where(
        two, "engagements and battles", np.where(
            hero_joined, "engagements (joined to a squad)", np.where(
                ze.notna(), "engagements", np.where(zb.notna(), by_battles, ""))))
    return tab, scales


def _log_values(tab: pd.DataFrame, col: str, scales: tuple | None
                ) -> tuple[pd.Series, pd.Series, tuple | None]:
    """The log of a battle figure ``col`` (its relative standard error from ``col + "_se"``)
    where it is measurable (above :data:`battle_value.V_MIN` and its own standard error),
    and the standardisation of both strengths: ``scales`` = (mean and sd of the engagement
    strength, mean and sd of the log value) over the cards of the fit that have both, unless
    given (a patch keeps the unpatched edition's); None when fewer than 5 have both."""
    from dustsim.review.battle_value import V_MIN

    v = pd.to_numeric(tab[col], errors="coerce")
    vse = pd.to_numeric(tab[f"{col}_se"], errors="coerce")
    ok = (v > V_MIN) & (v > vse.fillna(0))
    lb, lb_se = np.log(v.where(ok)), (vse / v).where(ok)
    if scales is None:
        s = tab["strength"]
        both = tab["in_fit"] & s.notna() & lb.notna()
        if both.sum() >= 5:
            scales = (float(s[both].mean()), float(s[both].std()), float(lb[both].mean()),
                      float(lb[both].std()))
    return lb, lb_se, scales


def board_needed(cards: Iterable[Card], field_: tuple[Opponent, ...]) -> list[str]:
    """The cards that play board battles (step 3c): those whose main roles only the grid
    battlefield plays (:func:`dustsim.review.board_value.board_valued`) and the reference
    field's representatives, which put the board's scale on the engagements'."""
    from dustsim.review.board_value import board_valued

    reps = {o.name for o in field_}
    return [c.name for c in cards if c.name in reps or board_valued(c)]


def _combine_board(tab: pd.DataFrame, scales: tuple | None,
                   cards: Iterable[Card] = ()) -> tuple[pd.DataFrame, tuple | None]:
    """Step 3c: a card all of whose main roles the board plays (``board_value.board_valued``)
    and whose board value is measurable (above :data:`battle_value.V_MIN` and its own
    standard error; its role had something to act on) takes the log of its board value as its
    strength, standardised so that over the cards of the fit that have one (the reference
    field) its mean and sd are those of their strength (``scales``: from the unpatched
    edition when given); ``valued_by`` "board battles". Nothing is fitted to printed costs."""
    if "board_value" not in tab:
        return tab, scales
    from dustsim.review.board_value import board_left_out, board_valued

    tab = tab.copy()
    by = {c.name: c for c in cards}
    lb, lb_se, scales = _log_values(tab, "board_value", scales)
    if scales is None:
        return tab, None
    ms, ss, mb, sb = scales
    used = ~tab["board_role_used"].fillna("").astype(str).str.startswith("nothing")
    mine = np.array([u in by and board_valued(by[u]) for u in tab["unit"]], bool)
    take = mine & lb.notna().to_numpy() & used.to_numpy()
    tab.loc[take, "strength"] = (ms + ss * (lb - mb) / sb)[take]
    tab.loc[take, "strength_se"] = (ss * lb_se / sb)[take]
    if "host" in tab:  # its marginal worth on the board: nothing to subtract
        tab.loc[take, "host"] = ""
    tab.loc[take, "valued_by"] = "board battles (its role played on the grid)"
    tab["board_left_out"] = ["; ".join(board_left_out(by[u])) if m else ""
                             for u, m in zip(tab["unit"], take, strict=True)]
    if "battle_weight" in tab:
        tab.loc[take, "battle_weight"] = np.nan
    return tab, scales


#: the board battles' columns in the value table (``board_value.board_values``)
BOARD_COLUMNS = ("board_value", "board_value_se", "board_pairings", "board_standin",
                 "board_role_used", "board_why")


BATTLE_COLUMNS = ("battle_value", "battle_value_se", "battle_vp", "battle_pairings",
                  "battle_joined",
                  "battle_why", "battle_fair_ap", "battle_fair_low", "battle_fair_high",
                  "battle_verdict")


LENS_TITLES = {"engagements": "Value from one-on-one engagements",
               "battles": "Value from battles (with and without the card in sampled armies)",
               "consistency": "Consistency lens (a statistical model of the price list, out "
                              "of fold; not a model of play)"}


# -- the second lens and the verdict a designer reads ---------------------------------------------
CONSISTENCY_COLUMNS = ("consistency_ap", "consistency_low", "consistency_high",
                       "consistency_peers")


def _with_consistency(tab: pd.DataFrame, edition_cards: list[Card], seed: int) -> pd.DataFrame:
    """Join the consistency lens (:mod:`dustsim.review.consistency`: a statistical model of the
    price list, out of fold) and the evidence strength of each verdict:

    * ``consistency_verdict``: the printed AP above the lens's interval (*over-costed*), below it
      (*under-costed*) or inside (*in band*);
    * ``evidence``: **strong** where the model of play and the lens give the same verdict,
      *moderate* where one calls the card off and the other in band, *conflicting* where they
      call it off in opposite directions, *play only* where the lens has no interval, and ""
      for cards the model of play does not judge."""
    from dustsim.review.consistency import consistency

    tab = tab.drop(columns=[c for c in (*CONSISTENCY_COLUMNS, "consistency_verdict",
                                        "evidence") if c in tab])
    try:
        lens = consistency(edition_cards, seed=seed).table
    except DustsimError:  # too few priced cards for a cross-validated lens
        lens = pd.DataFrame(columns=["unit", *CONSISTENCY_COLUMNS])
    tab = tab.merge(lens[["unit", *CONSISTENCY_COLUMNS]], on="unit", how="left")
    ap = pd.to_numeric(tab["ap"], errors="coerce").to_numpy(float)
    hi = pd.to_numeric(tab["consistency_high"], errors="coerce").to_numpy(float)
    lo = pd.to_numeric(tab["consistency_low"], errors="coerce").to_numpy(float)
    known = ~(tab["consistency_ap"].isna().to_numpy() | np.isnan(ap) | np.isnan(hi)
              | np.isnan(lo))
    cv = np.full(len(tab), "", dtype=object)  # no lens (too few priced cards): no verdict
    k = np.flatnonzero(known)
    cv[k] = np.where(ap[k] > hi[k], "over-costed",
                     np.where(ap[k] < lo[k], "under-costed", "in band"))
    tab["consistency_verdict"] = cv
    play = tab["verdict"]
    judged = play.isin(("over-costed", "under-costed", "in band"))
    ev = np.where(play == cv, "strong",
                  np.where((play == "in band") | (cv == "in band"), "moderate", "conflicting"))
    ev = np.where(cv == "", "play only", ev)
    tab["evidence"] = np.where(judged, ev, "")
    return tab


def _with_reasons(tab: pd.DataFrame, pairs: pd.DataFrame,
                  field_: tuple[Opponent, ...]) -> pd.DataFrame:
    """``reason``: one sentence per card: what it wins or loses its engagements with (the
    field's weighted share of each opponent it destroys and of itself it loses; the
    opponent it does best and worst against), what the price list says, and the roles the
    model does not play."""
    w = {o.name: o.weight for o in field_}
    p = pairs[pairs["opponent"].isin(w)].copy() if len(pairs) else pairs
    by_unit = dict(tuple(p.groupby("unit", sort=False))) if len(p) else {}
    out = []
    for r in tab.itertuples():
        bits = []
        g = by_unit.get(r.unit)
        if g is not None and len(g):
            ww = g["opponent"].map(w).to_numpy()
            kill = float((ww * g["d_unit"]).sum() / ww.sum())
            lose = float((ww * g["d_opp"]).sum() / ww.sum())
            best = g.loc[g["y"].idxmax(), "opponent"]
            worst = g.loc[g["y"].idxmin(), "opponent"]
            host = getattr(r, "host_engagements", r.host)  # whom it played joined to
            who = f" (joined to {host})" if isinstance(host, str) and host else ""
            bits.append(f"In play{who} it destroys {kill:.0%} of an opponent of the field for "
                        f"{lose:.0%} of itself; best against {best}, worst against {worst}")
            bvv = getattr(r, "battle_value", math.nan)
            if isinstance(bvv, float) and np.isfinite(bvv):
                joined = f", joined to {r.battle_joined}" if r.battle_joined else ""
                vp = getattr(r, "battle_vp", math.nan)
                vp = f" ({vp:+.1f} VP)" if isinstance(vp, float) and np.isfinite(vp) else ""
                bits.append(f"in battles it adds {bvv:+.1f} ± {r.battle_value_se:.1f} AP of "
                            f"attrition{vp} to {int(r.battle_pairings)} armies of its bloc{joined}")
            if r.verdict in ("over-costed", "under-costed", "in band", "lower bound"):
                bits.append(f"worth {'at least ' if getattr(r, 'lower_bound', False) else ''}"
                            f"{r.fair_ap:.1f} AP ({r.fair_low:.0f}-{r.fair_high:.0f}) "
                            f"against {r.ap:g} printed: {r.verdict}")
        elif isinstance(r.why, str) and r.why:
            bits.append(f"Not played: {r.why}")
        if np.isfinite(r.consistency_ap if r.consistency_ap is not None else math.nan):
            bits.append(f"the price list charges {r.consistency_ap:.1f} AP "
                        f"({r.consistency_low:.0f}-{r.consistency_high:.0f}) for cards like it"
                        f" ({r.consistency_peers})")
        if r.mainly_unmodelled and getattr(r, "lower_bound", False):
            bits.append(f"judged on what it plays: its {r.mainly_unmodelled} is not played, "
                        "so its fair cost is a lower bound (under-costed or a lower bound, "
                        "never over-costed)")
        elif r.mainly_unmodelled:
            bits.append(f"its worth lies mainly in {r.mainly_unmodelled}, which the "
                        "engagements do not play")
        elif str(getattr(r, "valued_by", "")).startswith("board"):
            left = getattr(r, "board_left_out", "")
            bits.append(f"valued from battles on the grid battlefield, where its "
                        f"{r.not_modelled or 'role'} is played: it adds {r.board_value:+.1f} ± "
                        f"{r.board_value_se:.1f} AP of attrition margin to "
                        f"{int(r.board_pairings)} armies of its bloc, played at a stand-in "
                        f"{r.board_standin:g} AP (not its printed cost)"
                        + (f"; the board leaves out {left}" if left else ""))
        elif getattr(r, "valued_by", "") == "battles (joined to a unit)":
            bits.append("valued from the battles alone, joined to a unit of its armour as it "
                        "must be (1947 L3477-3479; alone it would not be a legal unit); "
                        f"named: {r.not_modelled}")
        elif getattr(r, "valued_by", "") == "battles (its command role)":
            bits.append("valued from the battles alone, where its Rally and Get Moving "
                        "command the other units (one on one it has nobody to command); "
                        f"named: {r.not_modelled}")
        elif r.not_modelled:
            bits.append(f"not played: {r.not_modelled}")
        out.append("; ".join(bits) + ("." if bits else ""))
    tab["reason"] = out
    return tab


def _apply(tab: pd.DataFrame, mapping: Mapping | None) -> pd.DataFrame:
    """Fair AP, band, verdict and rank from the strengths under ``mapping``. A joined hero's
    fair AP is what it adds: fair(joined unit) - fair(host squad alone), at least
    :data:`ROUNDING_AP`; its ``strength`` is then the strength that maps to that AP (the
    joined unit's stays in ``strength_joined``)."""
    from scipy import stats

    tab = tab.copy()
    tab["ap"] = pd.to_numeric(tab["ap"], errors="coerce").astype(float)
    for k in ("strength", "strength_se"):
        tab[k] = pd.to_numeric(tab[k], errors="coerce").astype(float)
    if "strength_joined" in tab:  # re-applying: start again from the joined strengths
        tab["strength"] = tab["strength_joined"].where(tab["host"] != "", tab["strength"])
        tab["strength_se"] = tab["strength_joined_se"].where(tab["host"] != "",
                                                             tab["strength_se"])
    tab["strength_joined"] = tab["strength"].where(tab["host"] != "")
    tab["strength_joined_se"] = tab["strength_se"].where(tab["host"] != "")
    for k in ("fair_ap", "fair_low", "fair_high", "residual"):
        tab[k] = math.nan
    ok = tab["strength"].notna()
    if mapping is not None and ok.any():
        alone = ok & (tab["host"] == "")
        s, se = tab.loc[alone, "strength"], tab.loc[alone, "strength_se"]
        tab.loc[alone, "fair_ap"] = mapping.fair(s)
        lo, hi = mapping.band(s, se)
        tab.loc[alone, "fair_low"] = np.maximum(lo, 0.0)
        tab.loc[alone, "fair_high"] = hi
        joined = ok & (tab["host"] != "")
        st_by = tab.set_index("unit")
        for i in tab.index[joined]:
            host = tab.at[i, "host"]
            sh, seh = st_by.at[host, "strength"], st_by.at[host, "strength_se"]
            sj, sej = tab.at[i, "strength"], tab.at[i, "strength_se"]
            if not np.isfinite(sh):
                continue
            fj, fh = float(mapping.fair(sj)), float(mapping.fair(sh))
            fair = max(fj - fh, ROUNDING_AP)
            sd_mc = mapping.b * math.hypot(fj * sej, fh * seh)
            if mapping.boot:
                ab = np.asarray(mapping.boot)
                sd_fit = float(np.std(np.exp(ab[:, 0] + ab[:, 1] * sj)
                                      - np.exp(ab[:, 0] + ab[:, 1] * sh), ddof=1))
            else:
                sd_fit = 0.0
            sd_res = fair * mapping.sd_resid  # the model's scatter, in AP at this cost
            half = stats.norm.ppf(0.5 + BAND / 2) * math.sqrt(sd_mc**2 + sd_fit**2 + sd_res**2)
            tab.at[i, "fair_ap"] = fair
            tab.at[i, "fair_low"] = max(fair - half - ROUNDING_AP, 0.0)
            tab.at[i, "fair_high"] = fair + half + ROUNDING_AP
            tab.at[i, "strength"] = (math.log(fair) - mapping.a) / mapping.b
            tab.at[i, "strength_se"] = half / fair / abs(mapping.b) / stats.norm.ppf(
                0.5 + BAND / 2)
        costed = tab["fair_ap"].notna() & (tab["ap"].fillna(0) > 0)
        tab.loc[costed, "residual"] = (np.log(tab.loc[costed, "ap"])
                                       - np.log(tab.loc[costed, "fair_ap"]))
    ap = tab["ap"]
    verdict = np.where(ap > tab["fair_high"], "over-costed",
                       np.where(ap < tab["fair_low"], "under-costed", "in band"))
    verdict = np.where(tab["fair_ap"].isna(), "no value", verdict)
    verdict = np.where(tab["partial"] & tab["fair_ap"].notna(), "partial data", verdict)
    floor = (tab["lower_bound"].fillna(False).astype(bool) if "lower_bound" in tab
             else pd.Series(False, tab.index))
    verdict = np.where((tab["mainly_unmodelled"] != "") & tab["fair_ap"].notna() & ~floor,
                       "not judged", verdict)
    # a lower bound (step 5b) shows a card under-costed, never over-costed or in band
    verdict = np.where(floor & tab["fair_ap"].notna() & (verdict != "under-costed"),
                       "lower bound", verdict)
    verdict = np.where(tab["fair_ap"].notna() & ~(tab["ap"].fillna(0) > 0), "no cost",
                       verdict)
    tab["verdict"] = verdict
    tab["value_per_ap"] = (tab["fair_ap"] / tab["ap"]).where(tab["ap"].fillna(0) > 0)
    judged = tab["verdict"].isin(("over-costed", "under-costed", "in band"))
    tab["rank_value_per_ap"] = tab["value_per_ap"].where(judged).rank(ascending=False,
                                                                      method="min")
    return tab.sort_values("value_per_ap", ascending=False, na_position="last").reset_index(
        drop=True)


def reapply(model: ValueModel, mapping: Mapping) -> ValueModel:
    """The same strengths under another mapping."""
    tab = _with_consistency(_apply(model.table, mapping), list(model.cards),
                            model.settings.seed)
    tab = _with_reasons(tab, pair_log_ratios(model.engagements, model.settings.eps),
                        model.field)
    return replace(model, table=tab, mapping=mapping)


# -- the heuristic baseline -----------------------------------------------------------------------
def heuristic_strength(card: Card, weights: dict[str, float] | None = None) -> float:
    """The baseline the model must beat (no probabilities): offence = sum over weapons and
    columns of column weight x dice x damage x carriers x range factor (1 + reach / 6, reach =
    move + range, C = 1, U = 24), times health (models or damage track) times an armour factor
    (the armour value). Blast dice count 3 targets; auto-kill counts damage 3."""
    if not card.ap or card.armour is None:
        return math.nan
    w = weights or {c: 1 / len(COLUMNS) for c in COLUMNS}
    off = 0.0
    for wp in card.weapons:
        if wp.optional or wp.count == 0:
            continue
        r = wp.range
        rng = 1 if r == "C" else 24 if r.endswith("U") else int(r.split("-")[-1]) if r != "?" \
            else 0
        factor = 1 + ((card.move or 0) + rng) / 6
        for col in COLUMNS:
            cell = wp.cell(col)
            if not cell.usable:
                continue
            dice = 3 * cell.blast if cell.blast else cell.dice
            dmg = 3 if cell.auto_kill else cell.damage
            off += w[col] * dice * dmg * max(wp.count, 1) * factor
    health = (card.models if card.kind == "squad" else card.damage_track) or 1
    return off * health * (card.armour_value or 1)


def compare(before: ValueModel, after: ValueModel) -> pd.DataFrame:
    """Per card: rank, fair cost and verdict before and after (tidy, changed cards first)."""
    cols = ["unit", "ap", "strength", "fair_ap", "verdict", "rank_value_per_ap",
            "value_per_ap"]
    df = before.table[cols].merge(after.table[cols], on="unit", how="outer",
                                  suffixes=("_before", "_after"))
    df["rank_move"] = df["rank_value_per_ap_before"] - df["rank_value_per_ap_after"]
    df["fair_move"] = df["fair_ap_after"] - df["fair_ap_before"]
    df["changed"] = ((df["ap_before"] != df["ap_after"])
                     | (df["strength_before"].fillna(0) != df["strength_after"].fillna(0)))
    df["verdict_changed"] = df["verdict_before"] != df["verdict_after"]
    return df.sort_values(["changed", "verdict_changed", "rank_move"],
                          ascending=[False, False, False], key=lambda s: s.abs()
                          if s.name == "rank_move" else s).reset_index(drop=True)


def run_patch(edition_cards: list[Card], changes: dict[str, Card], before: ValueModel, *,
              progress: bool = False) -> tuple[ValueModel, pd.DataFrame]:
    """The model after a patch: only the changed cards' engagements are re-run (all of them
    when a representative of the field changed); the field and the mapping stay those of the
    unpatched edition (re-applied, not refitted)."""
    new_cards = patched(edition_cards, changes)
    after = value_model(new_cards, before.settings, previous=before.engagements,
                        field_=before.field, mapping=before.mapping, hosts=before.hosts,
                        progress=progress, previous_battles=before.battles,
                        battle_contexts=before.battle_contexts,
                        battle_mapping=before.battle_mapping, scales=before.scales,
                        previous_board=before.board, board_scales=before.board_scales)
    return after, compare(before, after)


# -- report sections (HTML fragments; the site renders the tables) --------------------------------
def verdict_tables(model: ValueModel, n: int = 10,
                   units: Iterable[str] | None = None) -> dict[str, pd.DataFrame]:
    """The headline tables (of ``units`` only, if given; the fit is the whole edition's):
    best and worst per AP, most over- and under-costed, the cards kept out of the verdicts."""
    t = model.table
    if units is not None:
        t = t[t["unit"].isin(set(units))]
    judged = t[t["verdict"].isin(("over-costed", "under-costed", "in band"))]
    cols = ["unit", "kind", "armour", "ap", "fair_ap", "fair_low", "fair_high", "strength",
            "strength_se", "value_per_ap", "verdict", "not_modelled"]
    out = {
        "best_per_ap": judged.nlargest(n, "value_per_ap")[cols],
        "worst_per_ap": judged.nsmallest(n, "value_per_ap")[cols],
        "over_costed": judged[judged["verdict"] == "over-costed"].nlargest(n, "residual")[
            [*cols, "residual"]],
        "under_costed": judged[judged["verdict"] == "under-costed"].nsmallest(n, "residual")[
            [*cols, "residual"]],
        "lower_bound": t[t["verdict"] == "lower bound"][
            ["unit", "kind", "ap", "fair_ap", "fair_low", "fair_high", "mainly_unmodelled"]],
        "not_judged": t[t["verdict"] == "not judged"][
            ["unit", "kind", "ap", "fair_ap", "mainly_unmodelled", "not_modelled"]],
        "no_value": t[t["verdict"] == "no value"][["unit", "kind", "ap", "why"]],
    }
    return out


def roles_table(cards: Iterable[Card],
                bound_roles: dict[str, tuple[str, ...]] | None = None) -> pd.DataFrame:
    """Every unmodelled role or skill of the edition's cards: how many cards have it, whether
    it keeps them out of the verdicts (``main``), and the cards (the model's gap list);
    ``bound_roles`` (:func:`bound_roles_of` the edition) adds the rules of main weapons the
    line does not play and heroes' named piloting."""
    found: dict[tuple[str, bool], list[str]] = {}
    for c in cards:
        for role, main in not_modelled(c):
            found.setdefault((role, main), []).append(c.name)
        for role in (bound_roles or {}).get(c.name, ()):
            key = (role.split(" of its main weapon")[0] + " of its main weapon"
                   if " of its main weapon" in role else "piloting of its own vehicle")
            found.setdefault((key, True), []).append(c.name)
    rows = [{"role": r, "main": m, "cards": len(v), "examples": ", ".join(v[:6])}
            for (r, m), v in found.items()]
    return (pd.DataFrame(rows, columns=["role", "main", "cards", "examples"])
            .sort_values(["main", "cards"], ascending=False).reset_index(drop=True))


def html_section(model: ValueModel, table_html: Callable[[pd.DataFrame, list, int], str],
                 units: Iterable[str] | None = None) -> str:
    """The report's value-model section (``table_html(df, cols, n)`` renders a table) for
    ``units`` (default: every card)."""
    import html as _h

    q = model.quality()
    m = model.mapping
    st = model.settings
    parts = ["<h2>Value from play: fair points and verdicts</h2>",
             "<p>Each card plays one-on-one engagements against a reference field ("
             + ("the median-cost card of each armour class" if st.per_class == 1 else
                f"up to {st.per_class} cards of each armour class, at the "
                + ", ".join(f"{(i + 0.5) / st.per_class:.0%}" for i in range(st.per_class))
                + " quantiles of its printed costs, sharing the class's weight")
             + "; each class weighted by its share of the "
             f"edition's AP), from {', '.join(map(str, st.distances))} squares"
             + (", infantry in cover, " if st.infantry_cover else ", ")
             + f"{st.turns} turns, {st.trials:,} engagements per distance (seed {st.seed}); "
             "strength = field-weighted log ratio of what it destroys to what it loses; "
             "fair AP from one calibration line of strength on log AP (inverted) over the "
             "whole edition. See <code>dustsim.review.value</code>.</p>"]
    if st.battles:
        who = ("every card" if st.battle_cards == "all" else
               "each card the engagements cannot value (command roles, Commissars) and each "
               "card of the reference field")
        parts.append(f"<p>Battles (<code>dustsim.review.battle_value</code>): {who} joins "
                     f"{st.battle_hosts} legal armies of its bloc ({st.battle_budget:g} AP) "
                     f"and plays each one's opponent with and without it, "
                     f"{st.battle_games} games each on common random numbers; the two "
                     "strengths are combined by precision (inverse squared standard "
                     "errors).</p>")
        if st.board:
            parts.append(f"<p>Battles on the grid battlefield (<code>dustsim.review."
                         f"board_value</code>): each card whose main roles only the board "
                         f"plays (transports, Artillery Observers, Mechanics, ...) and each "
                         f"card of the reference field joins {st.board_hosts} of those armies "
                         f"and plays scenario {_h.escape(st.board_scenario)} with and without "
                         f"it, {st.board_games} games each on common random numbers, the card "
                         "at a stand-in AP (its fair AP so far, else the median of its kind "
                         "and armour class), never its printed cost.</p>")
    if m is not None:
        parts.append(f"<p>Fit: n = {q['n']}, Spearman {q['spearman']:.3f}, log R² "
                     f"{q['log_r2']:.3f}; log AP = {m.a:.3f} + {m.b:.3f} × strength.</p>")
    for name, qq in model.lens_quality().items():
        if name == "engagements":
            continue
        parts.append(f"<p>{_h.escape(LENS_TITLES[name])}: n = {qq['n']}, Spearman "
                     f"{qq['spearman']:.3f}, log R² {qq['log_r2']:.3f} (suggested against "
                     "printed AP over the cards it judges).</p>")
    field_df = pd.DataFrame([o.__dict__ for o in model.field],
                            columns=["name", "column", "weight", "n_class", "class_ap"])
    parts.append("<h3>Reference field</h3>" + table_html(
        field_df, ["column", "name", "weight", "n_class"], 60))
    names = set(model.table["unit"]) if units is None else set(units)
    parts.append("<h3>Roles and skills the engagements do not play</h3><p>Named per card in "
                 "<code>not_modelled</code>; <i>main</i> roles keep a card out of the "
                 "verdicts and the fit.</p>" + table_html(
                     roles_table((c for c in model.cards if c.name in names),
                                 bound_roles_of(model.cards)),
                     ["role", "main", "cards", "examples"], 60))
    titles = {"best_per_ap": "Best value per AP", "worst_per_ap": "Worst value per AP",
              "over_costed": "Most over-costed", "under_costed": "Most under-costed",
              "lower_bound": "Lower bounds: judged on what they play, a main role not played",
              "not_judged": "Not judged: value mainly in roles not modelled",
              "no_value": "No value: cannot play"}
    for key, df in verdict_tables(model, units=names).items():
        parts.append(f"<h3>{_h.escape(titles[key])} ({len(df)})</h3>"
                     + table_html(df, list(df.columns), 10 if key not in (
                         "lower_bound", "not_judged", "no_value") else 200))
    return "\n".join(parts)


def patch_section(diff: pd.DataFrame, table_html, chart: str | None = None) -> str:
    """The before/after section of ``report --patch``."""
    ch = diff[diff["changed"] | diff["verdict_changed"] | (diff["rank_move"].abs() > 0)]
    cols = ["unit", "ap_before", "ap_after", "fair_ap_before", "fair_ap_after",
            "verdict_before", "verdict_after", "rank_value_per_ap_before",
            "rank_value_per_ap_after", "rank_move"]
    img = (f"<a href='charts/{chart}.svg'><img src='charts/{chart}.png' alt='{chart}'></a>"
           if chart else "")
    return ("<h2>Balance patch: before and after</h2><p>Changed cards first, then verdict "
            "changes, then rank moves. The field and the cost mapping are those of the "
            "unpatched edition.</p>" + table_html(ch, cols, 40) + img)


def patch_chart(diff: pd.DataFrame, title: str = ""):
    """Fair cost and band before and after of the changed cards: the review's chart,
    :func:`dustsim.review.charts.patch_chart` (no pyplot state)."""
    from dustsim.review.charts import patch_chart as chart

    return chart(diff, title)
