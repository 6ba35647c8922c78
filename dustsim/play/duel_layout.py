"""The flat-array layout shared by the duel compiler (:mod:`dustsim.play.duel`) and the engagement
kernel (:mod:`dustsim.play.duel_kernel`): column and slot indices, nothing else.

It imports nothing heavy, so building the command line (``dustsim --help``) never loads
Numba. A name that is not defined here (a kernel entry point such as ``play_games``) is
looked up in :mod:`dustsim.play.duel_kernel` on first use, so ``K.<kernel>`` keeps working for
code that imports this module as ``K``. Numba's cache keys on the kernel's own file: after
changing a value here, touch ``duel_kernel.py`` too.
"""

from __future__ import annotations

# unit columns (U_THIRD: the die faces that grant a third action, 0 none; U_FLAGS: the
# F_* skill bits below; U_REACT_MASK: faces that succeed on its reactive dice; issue 23,
# dustsim.rules.unit_rules)
(U_SIDE, U_MODELS, U_HERO, U_SINGLE, U_MOVE, U_AIR, U_REACT_RANGE, U_SUPP_DICE, U_IMMUNE,
 U_W0, U_W1, U_SQUAD, U_SUPPORT, U_MARCH, U_THIRD, U_FLAGS, U_REACT_MASK) = range(17)
N_UNIT_COLS = 17
#: U_FLAGS bits: Scout, Charge, At the Double, Move and Fire, First Strike, Camouflage,
#: Fighting Spirit, Lucky, Assassin, Smoke Launchers, Airborne, an officer (command actions),
#: its radio, General, Air Traffic Control, an aircraft (meanings and lines:
#: dustsim.rules.unit_rules)
(F_SCOUT, F_CHARGE, F_AT_THE_DOUBLE, F_MOVE_AND_FIRE, F_FIRST_STRIKE, F_CAMOUFLAGE,
 F_FIGHTING_SPIRIT, F_LUCKY, F_ASSASSIN, F_SMOKE, F_AIRBORNE, F_OFFICER, F_RADIO, F_GENERAL,
 F_AIR_TRAFFIC, F_AIRCRAFT) = (1 << i for i in range(16))
#: more U_FLAGS bits: Quick Recovery (no Nothing after an Airborne drop), no orders (Lesser
#: Mythos Creatures: never the target of command actions); dustsim.rules.unit_rules. High
#: bits, clear of the bits appended above
F_QUICK_RECOVERY, F_NO_ORDERS = 1 << 40, 1 << 41
#: dice group columns past the dice kernel's 14: the line's save and save re-roll masks
#: against the target in cover (a smoke screen on it, 1947 L680, L3228)
G_COVER_SAVE, G_COVER_RR = 14, 15
N_GROUP_COLS = 16
# weapon columns (W_SALVO, W_VOLLEY: the weapon is a Salvo / Volley weapon, 003:L3308-3341)
(W_UNIT, W_CARRIERS, W_HERO, W_RMIN, W_RMAX, W_CC, W_AMMO, W_RELOAD, W_SETUP, W_BURST,
 W_SALVO, W_VOLLEY) = range(12)
#: W_SCREAM: 1 the line of a Psychic Scream skill (rules.attack.is_psychic_scream): never
#: fired in an Attack (its W_RMAX is -1), one use (W_AMMO 1) by the grid kernel's free action;
#: 2 a Large Ordnance line: on the grid it strikes every unit in a 2 x 2 area (W_AREA); both
#: have their dice also compiled against friendly units
W_SCREAM = 12
W_AREA = 2
#: W_STEALTH: 1 a Stealth line (BattleScribe ``Dust_1947.gst`` rule 328a-77cc-4b29-e85c):
#: an Attack that fires only such lines does not end the unit's Camouflage. Columns 13-16 are
#: the grid battles' own (play.battle_rules W_WIRE, W_ARTY, W_SNIPE; battle_platoon
#: W_STAY_DOWN), zero here
W_STEALTH = 17
N_WEAPON_COLS = 18
# configuration (C_SALVO: Salvo attacks whenever loaded; C_VOLLEY: every ammo box in one
# volley; C_FIRST: 1 when the initiative winner lets the opponent activate first, L337;
# C_CHARGE: units with Charge charge when they can; C_NOW: the turn being played, written by
# the kernel; C_ORDERS: officers order Get Moving You Bunch of Monkeys under the policy)
(C_TURNS, C_DIST, C_INIT, C_PASS, C_APPROACH, C_SUPP, C_TIEBREAK, C_INIT_DICE, C_REACT_DICE,
 C_P, C_T, C_BURST, C_SALVO, C_VOLLEY, C_FIRST, C_CHARGE, C_NOW, C_ORDERS) = range(18)
N_CONFIG = 18
# state columns (ST_STUN: 0 none, 1 Stunned (Tesla, Cheat Death), 2 + g held by unit g's
# Grapple weapon; ST_CAMO: camouflaged now; ST_FIRST: not yet activated this game; ST_SPIRIT /
# ST_LUCKY: 0 unused, 2 in use in this Attack action, 1 spent; ST_SMOKE: the last turn of the
# smoke screen on it, 0 none; ST_SMOKES: smoke launches left; ST_OFF: 1 while an Airborne
# unit is not yet on the table; ST_REACTIVATED: reactivated by Get Moving this turn)
(ST_MODELS, ST_HERO, ST_SINGLE, ST_TOK, ST_X, ST_ACT, ST_MOVED, ST_STUN, ST_CAMO, ST_FIRST,
 ST_SPIRIT, ST_LUCKY, ST_SMOKE, ST_SMOKES, ST_OFF, ST_REACTIVATED) = range(16)
# weapon state
WS_AMMO, WS_LOADED = range(2)
FAR = 1_000_000  # "U" range


def __getattr__(name: str):
    from dustsim.play import duel_kernel

    return getattr(duel_kernel, name)
