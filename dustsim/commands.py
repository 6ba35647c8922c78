"""Subcommands built on the engines (attack, bench, report) register themselves here."""
