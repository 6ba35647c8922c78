"""The Python API: the curated entry points (``__all__``), re-exported by ``dustsim``.

Every call returns a result answering ``summary()``, ``to_frame()`` and ``se(name)``
(:mod:`dustsim.engines.results`).

>>> from dustsim.api import attack
>>> r = attack("3/1", target="I2", models=5, cover=True, sustained=True)
>>> round(r.damage.mean(), 4)
0.5556
"""

from __future__ import annotations

from dustsim import DEFAULT_TRIALS
from dustsim.data.cards import Card, find_card, load_cards
from dustsim.engines.distributions import Distribution
from dustsim.engines.exact import evaluate as exact_evaluate
from dustsim.engines.results import AttackResult
from dustsim.errors import DustsimError
from dustsim.rules.attack import (
    Situation,
    Target,
    compile_attack,
    target_from_card,
    weapon_from_cell,
)
from dustsim.rules.card_attack import card_attack_spec
from dustsim.rules.rulesets import get_ruleset

__all__ = [
    "DEFAULT_TRIALS",
    "AttackResult",
    "Distribution",
    "DustsimError",
    "attack",
    "battle",
    "card_attack_spec",
    "duel",
    "epic_battle",
    "evaluate",
    "find_card",
    "load_cards",
    "load_list",
    "meta",
    "play_lists",
    "unit_attack",
    "value_model",
]

ENGINES = ("exact", "mc")


def evaluate(spec, engine: str = "exact", *, trials: int = DEFAULT_TRIALS, seed: int = 0,
             threads: int | None = None) -> AttackResult:
    """Evaluate a compiled :class:`~dustsim.rules.attack.AttackSpec` with the chosen engine."""
    if engine == "exact":
        return exact_evaluate(spec)
    if engine == "mc":
        from dustsim.engines.kernel import simulate

        return simulate(spec, trials, seed, threads=threads)
    raise DustsimError(f"engine {engine!r} is not one of {', '.join(ENGINES)}", field="engine")


def attack(
    weapon: str,
    target: str,
    *,
    count: int = 1,
    keywords: tuple[str, ...] = (),
    ruleset: str = "dust-1947",
    sustained: bool = False,
    reactive: bool = False,
    moved: bool = False,
    skills: tuple[str, ...] = (),
    salvo: bool = False,
    volley: int = 0,
    aim: str = "none",
    attacker_token: str = "none",
    close_combat: bool = False,
    models: int | None = None,
    track: int | None = None,
    engine: str = "exact",
    trials: int = DEFAULT_TRIALS,
    seed: int = 0,
    options: dict | None = None,
    **target_kw,
) -> AttackResult:
    """One weapon line in card notation (``"3/1"``, ``"*/1"``, ``"2/#"``) against a column.

    Attacker: ``salvo``, ``volley`` (ammo boxes), ``aim`` (Sniper/Assassin: ``hero`` or
    ``soldier``), ``attacker_token``; target keywords go to :class:`~dustsim.rules.attack.Target`
    (``cover``, ``policy``, ``hero_track``, ``hero_skills``, ``hero_damage_taken``,
    ``small``...)."""
    rs = get_ruleset(ruleset, **(options or {}))
    w, cell = weapon_from_cell(weapon, count=count, keywords=keywords, column=target,
                               range_="C" if close_combat else "6")
    action = "reactive" if reactive else ("sustained" if sustained else "attack")
    sit = Situation(action=action, moved=moved, skills=frozenset(skills), salvo=salvo,
                    volley=volley, aim=aim, token=attacker_token, close_combat=close_combat)
    tgt = Target(column=target, models=models, track=track, **target_kw)
    return evaluate(compile_attack([(w, cell)], tgt, sit, rs), engine, trials=trials,
                    seed=seed)


def unit_attack(attacker: Card, defender: Card, *, action: str = "attack", cover: bool = False,
                engine: str = "exact", trials: int = DEFAULT_TRIALS, seed: int = 0,
                close_combat: bool = False, ruleset: str | None = None) -> AttackResult:
    """Fire every weapon of ``attacker`` that can hurt ``defender`` (at full strength)."""
    if attacker.edition != defender.edition:
        raise DustsimError(f"{attacker.name} ({attacker.edition}) and {defender.name} "
                           f"({defender.edition}) belong to different editions",
                           field="--vs")
    target = target_from_card(defender, cover=cover)
    spec = card_attack_spec(attacker, target, action=action, close_combat=close_combat,
                            ruleset=ruleset)
    return evaluate(spec, engine, trials=trials, seed=seed)


def duel(side_a, side_b, **kw):
    """Play a small engagement to the end (Monte Carlo; :func:`dustsim.play.duel.duel`): Dust
    1947 on scenario 101's board by default (a ``BattleResult``), ``scenario="line"`` and the
    Tactics rulesets on the line (a ``DuelResult``)."""
    from dustsim.play.duel import duel as _duel

    return _duel(side_a, side_b, **kw)


def play_lists(a, b, **kw):
    """List against list; see :func:`dustsim.play.list_battles.play_lists`."""
    from dustsim.play.list_battles import play_lists as _play_lists

    return _play_lists(a, b, **kw)


def meta(lists, **kw):
    """Every list against every other; see :func:`dustsim.play.list_battles.meta`."""
    from dustsim.play.list_battles import meta as _meta

    return _meta(lists, **kw)


def battle(list_a, list_b, **kw):
    """Two lists on a scenario's board, game by game; see :func:`dustsim.play.battle.battle`
    (Monte Carlo, a named policy)."""
    from dustsim.play.battle import battle as _battle

    return _battle(list_a, list_b, **kw)


def epic_battle(attacker, defender, **kw):
    """A Dust Epic battle; see :func:`dustsim.play.epic.battle` (exact or Monte Carlo)."""
    from dustsim.play.epic import battle as _battle

    return _battle(attacker, defender, **kw)


def value_model(cards, settings=None, **kw):
    """The value model over one edition; see :func:`dustsim.review.value.value_model`."""
    from dustsim.review.value import value_model as _value_model

    return _value_model(cards, settings, **kw)


def load_list(path, cards=None, **kw):
    """An army list from TOML or a BattleScribe roster; see
    :func:`dustsim.army.lists.load_list`."""
    from dustsim.army.lists import load_list as _load_list

    return _load_list(path, cards, **kw)
