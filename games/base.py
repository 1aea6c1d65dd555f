"""The interface every rules engine implements, and the errors it raises.

A game is a stateless object: positions are immutable values, so ``apply``
returns a new position and never touches its input. Everything the web layer
and the AI know about a game goes through this interface.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Generic, TypeVar

State = TypeVar("State", bound=Hashable)
Move = TypeVar("Move", bound=Hashable)


class GameError(ValueError):
    """Base of every error a rules engine raises on bad input.

    The message is English detail for programs; ``key`` is a short stable name of
    the kind of error that the web layer translates for people.
    """

    key = "bad-input"

    def __init__(self, message: str = "", key: str | None = None) -> None:
        super().__init__(message)
        if key is not None:
            self.key = key


class UnknownGame(GameError):
    """No engine is registered under that name."""

    key = "unknown-game"


class BadPosition(GameError):
    """A position string that cannot be read; the message names the field."""

    key = "bad-position"


class BadMove(GameError):
    """Text that is not a move in the game's notation at all (a syntax error)."""

    key = "bad-move"


class IllegalMove(GameError):
    """A well-formed move that the rules do not allow in this position."""

    key = "illegal-move"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended.

    ``winner`` is a side letter as written in position strings (``w``/``b``,
    Bilsang ``1``/``2``) or ``None`` for a draw. ``reason`` is a short stable
    key (for example ``"no-moves"``, ``"repetition"``) that the web layer
    translates for people.
    """

    winner: str | None
    reason: str


class Game(ABC, Generic[State, Move]):
    """One game's rules. Subclasses are singletons registered in ``games``."""

    name: str
    title: str
    #: side letters, first player first, as in the position string
    sides: tuple[str, str]
    #: the ``initial`` options of a new match when the players choose none (Bilsang: its
    #: house default rule options); a mapping nobody should mutate
    new_match_options: Mapping[str, Any] = MappingProxyType({})

    @abstractmethod
    def initial(self, **options: Any) -> State:
        """The start position; options are game specific (Bashni: ``handicap``)."""

    @abstractmethod
    def to_move(self, state: State) -> str:
        """The side letter of the player to move."""

    @abstractmethod
    def legal_moves(self, state: State) -> list[Move]:
        """Every legal move; empty once the game is over."""

    @abstractmethod
    def apply(self, state: State, move: Move) -> State:
        """The position after ``move``, which must come from ``legal_moves(state)``."""

    @abstractmethod
    def outcome(self, state: State) -> Outcome | None:
        """The result judged from the position alone, or ``None`` while it goes on."""

    @abstractmethod
    def format_move(self, move: Move) -> str: ...

    @abstractmethod
    def format_position(self, state: State) -> str: ...

    @abstractmethod
    def parse_position(self, text: str) -> State:
        """Read a position string; raises ``BadPosition`` naming the wrong field."""

    @abstractmethod
    def clicks(self, move: Move) -> tuple[str, ...]:
        """The board points a player taps, in order, to make ``move``."""

    # ----------------------------------------------------------------- defaults

    def click_paths(self, move: Move) -> tuple[tuple[str, ...], ...]:
        """Every click order that makes ``move``; games where order is free add more."""
        return (self.clicks(move),)

    def parse_move(self, state: State, text: str) -> Move:
        """The legal move written ``text`` in ``state``.

        Raises ``BadMove`` when ``text`` is not notation at all and
        ``IllegalMove`` when it is, but is not legal here.
        """
        text = " ".join(text.split())
        self.check_move_syntax(text)
        if self.outcome(state) is not None:
            raise IllegalMove(f"the game is over; {text!r} cannot be played", key="game-over")
        for move in self.legal_moves(state):
            if self.format_move(move) == text:
                return move
        raise IllegalMove(f"{text!r} is not a legal move in this position")

    def check_move_syntax(self, text: str) -> None:
        """Raise ``BadMove`` if ``text`` cannot be a move in this notation."""

    def repetition_key(self, state: State) -> Hashable | None:
        """What must recur three times for a repetition draw; ``None``: no such rule."""
        return None

    def repetition_code(self, state: State) -> str | None:
        """``repetition_key`` as a short stable text, equal exactly when the keys are equal.

        Stored with each move, so that a threefold repetition is a count of equal codes
        rather than a new reading of every earlier position. The default, the key's
        ``repr``, is stable for keys made of numbers, strings and tuples of them; engines
        with a repetition rule override it with something shorter.
        """
        key = self.repetition_key(state)
        return None if key is None else repr(key)

    def outcome_after(self, history: Sequence[State]) -> Outcome | None:
        """The result of a game whose positions, start first, are ``history``.

        Adds what a single position cannot tell: threefold repetition.
        """
        last = history[-1]
        result = self.outcome(last)
        if result is not None:
            return result
        key = self.repetition_key(last)
        if key is None:
            return None
        if sum(1 for s in history if self.repetition_key(s) == key) >= 3:
            return Outcome(None, "repetition")
        return None

    def perft(self, state: State, depth: int) -> int:
        """Number of distinct legal move sequences of length ``depth``."""
        if depth <= 0:
            return 1
        moves = self.legal_moves(state)
        if depth == 1:
            return len(moves)
        return sum(self.perft(self.apply(state, m), depth - 1) for m in moves)

    def move_texts(self, state: State) -> list[str]:
        """The legal moves in notation, sorted in plain character order."""
        return sorted(self.format_move(m) for m in self.legal_moves(state))

    def play(self, state: State, text: str) -> State:
        """Parse ``text`` as a move in ``state`` and return the position after it."""
        return self.apply(state, self.parse_move(state, text))
