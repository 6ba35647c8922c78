"""dustsim: Monte Carlo and exact combat analytics for the Dust family of wargames."""

__version__ = "0.1.0"
