"""Who may play whom: the pairing rule, pure (no database), also applied in SQL."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Wish:
    """What a seek asks for and who makes it (the parts the rule reads)."""

    game: str
    time_control: str
    rated: bool
    owner: str
    rating: int | None = None
    range_min: int | None = None
    range_max: int | None = None


def inside(rating: int | None, low: int | None, high: int | None) -> bool:
    """A rating inside a range; no range admits anyone, and a range admits no unrated player."""
    if low is None and high is None:
        return True
    if rating is None:
        return False
    return (low is None or low <= rating) and (high is None or rating <= high)


def compatible(a: Wish, b: Wish) -> bool:
    """Same game, time control and rated flag, each player inside the other's range, never oneself."""
    return (
        a.owner != b.owner
        and a.game == b.game
        and a.time_control == b.time_control
        and a.rated == b.rated
        and inside(b.rating, a.range_min, a.range_max)
        and inside(a.rating, b.range_min, b.range_max)
    )
