"""Rules engines for Tablero's four games, behind one interface (``games.base``).

An explicit registry: each entry names the module whose ``GAME`` is the engine.
"""

from __future__ import annotations

import importlib

from games.base import (
    BadMove,
    BadPosition,
    Game,
    GameError,
    IllegalMove,
    Outcome,
    UnknownGame,
)

__all__ = [
    "BadMove",
    "BadPosition",
    "Game",
    "GameError",
    "IllegalMove",
    "Outcome",
    "UnknownGame",
    "all",
    "get",
    "names",
]

_ENGINES: dict[str, str] = {
    "bashni": "games.bashni",
    "morris": "games.morris",
    "bobail": "games.bobail",
    "bilsang": "games.bilsang",
}


def names() -> list[str]:
    """Registered game names, in the order the site lists them."""
    return [n for n in ("bashni", "morris", "bobail", "bilsang") if n in _ENGINES]


def get(name: str) -> Game:  # type: ignore[type-arg]
    """The engine registered as ``name``; raises ``UnknownGame`` otherwise."""
    module = _ENGINES.get(name)
    if module is None:
        known = ", ".join(names())
        raise UnknownGame(f"unknown game {name!r}; known games: {known}")
    return importlib.import_module(module).GAME


def all() -> list[Game]:  # type: ignore[type-arg]  # noqa: A001 - the registry's public name
    return [get(n) for n in names()]
