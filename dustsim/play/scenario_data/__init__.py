"""Scenario files (TOML), loaded by :mod:`dustsim.play.scenarios`."""
