"""dustsim: Monte Carlo and exact combat analytics for the Dust family of wargames."""

__version__ = "0.1.0"

# Monte Carlo trials of one attack, duel or battle when none are given, in Python and on the
# command line alike; sweeps over many figures (the report) set their own per-figure count
DEFAULT_TRIALS = 100_000
