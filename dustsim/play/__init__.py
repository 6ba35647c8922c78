"""Play: duels and engagements, list against list, and Dust Epic battles."""
