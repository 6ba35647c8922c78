"""Army building: lists, platoons (TO&E) and BattleScribe rosters."""
