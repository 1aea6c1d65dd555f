"""English msgids for things the engines name by key (sides, end reasons)."""

from __future__ import annotations

from games.base import Game


def N_(message: str) -> str:
    """Mark a message for the catalogue; it is translated where it is shown."""
    return message


#: So the extractor sees the game titles the engines carry.
GAME_TITLES = (N_("Bashni"), N_("Nine Men's Morris"), N_("Bobail"), N_("Bilsang"))

SIDE_LABELS = {"w": N_("White"), "b": N_("Black"), "1": N_("Player 1"), "2": N_("Player 2")}

REASONS = {
    "too-few-pieces": N_("fewer than three pieces left"),
    "no-moves": N_("no legal move left"),
    "repetition": N_("the same position occurred three times"),
    "ply-limit": N_("250 plies were played"),
    "neutron-home": N_("the Neutron reached a home row"),
    "last-buoy": N_("only one buoy is left"),
    "resignation": N_("resignation"),
    "agreement": N_("draw agreed"),
    "expired": N_("nobody joined in time"),
    "abandoned": N_("the player left the game"),
}

QUIET_REASONS = {
    "morris": N_("100 plies without a removal"),
    "bashni": N_("50 plies without a capture or a man's move"),
    "bilsang": N_("100 plies without a removal"),
}


def side_label(game: Game, side: str) -> str:  # type: ignore[type-arg]
    return SIDE_LABELS.get(side, side)


def reason_text(game_name: str, reason: str | None) -> str:
    if reason == "quiet":
        return QUIET_REASONS.get(game_name, N_("too many plies without progress"))
    return REASONS.get(reason or "", reason or "")
