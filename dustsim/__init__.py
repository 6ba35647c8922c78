"""dustsim: Monte Carlo and exact combat analytics for the Dust family of wargames."""

__version__ = "0.1.0"

# Monte Carlo trials of one attack, duel or battle when none are given, in Python and on the
# command line alike; sweeps over many figures (the report) set their own per-figure count
DEFAULT_TRIALS = 100_000
# ... and per figure of a sweep (a table cell of `dustsim sweep` and the report) and per
# pairing of a list meta, a fixed fraction of it
SWEEP_TRIALS = DEFAULT_TRIALS // 5
META_TRIALS = DEFAULT_TRIALS // 25
# ... and of a list battle on a scenario's board: a whole game on the grid costs about 0.4 ms
# of CPU (`dustsim bench`), so a tenth of it (P(win) to within 0.005) answers in seconds
BATTLE_TRIALS = DEFAULT_TRIALS // 10


# the curated API, re-exported from dustsim.api on first use so that ``import dustsim`` stays
# light (tests check that this is dustsim.api.__all__)
_API = ("AttackResult", "Distribution", "DustsimError", "attack", "unit_attack", "evaluate",
        "card_attack_spec", "duel", "battle", "play_lists", "meta", "epic_battle", "value_model",
        "load_cards", "find_card", "load_list")


def __getattr__(name: str):
    if name in _API:
        from dustsim import api

        return getattr(api, name)
    raise AttributeError(f"module 'dustsim' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_API})
