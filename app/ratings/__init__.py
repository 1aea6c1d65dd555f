"""Ratings (issue 31): Glicko-2 (glicko2.py), which games are rated (rules.py)."""
