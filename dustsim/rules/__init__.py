"""The rules of each Dust edition: dice, rulesets, skills, and the attack compiler."""
