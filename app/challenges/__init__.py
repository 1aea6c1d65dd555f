"""Challenges (issue 32, item 2): one account asks another for a game."""
