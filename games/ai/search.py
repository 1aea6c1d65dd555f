"""Iterative-deepening alpha-beta search over the ``Game`` interface.

The search knows nothing about any particular game: it asks the engine for
moves, successors and outcomes, and an ``Evaluation`` for a score of the
positions where it stops. Scores are negamax, always from the point of view
of the side to move, so one routine serves both players.

``search`` is a generator: after every completed depth it yields a
``Progress`` (depth, best move, score, nodes, principal variation). The caller
owns the clock: it may stop iterating at any time, or pass a ``deadline`` or a
``stop`` callable, checked every ``STOP_CHECK_NODES`` nodes; an interrupted
depth is dropped, so every yielded result comes from a finished iteration.
With a fixed depth and the same seed the search is deterministic.

What the search adds to plain alpha-beta, each for move ordering or pruning:

* a transposition table (a dict keyed by the position, or a faster key the
  evaluation supplies) holding depth, bound type, score and best move;
* principal variation search: after the first move, null windows, re-searched
  only when a move turns out better;
* move ordering: the table's move first, then the evaluation's cheap
  ``order_key`` (captures, removals, wins), two killer moves per ply and a
  history heuristic;
* a quiescence extension for evaluations that mark positions ``noisy`` (in
  Bashni a position where a capture is due: every legal move is a capture, so
  the search carries on through them rather than score mid-exchange);
* for the master level only (``Searcher``'s options, off by default so the
  depth-bound levels search exactly as before): a node budget (``max_nodes``,
  what makes a time-bound search testable), aspiration windows at the root
  a longer quiescence cap and late move reductions;
* repetition: for games with a repetition rule (``Game.repetition_key``), a
  position met again on the search path, or a third time counting the game's
  history, scores as a draw.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from games.base import Game, Outcome

#: The score of a won position at the root. A win ``n`` plies away scores
#: ``WIN - n``, so quicker wins (and slower losses) score better.
WIN = 1_000_000
#: No line is longer than this; scores beyond ``WIN - MAX_PLY`` are forced results.
MAX_PLY = 512
INFINITY = WIN + 1
#: How often (in nodes) the deadline and stop flag are looked at: often enough to
#: stop within a few milliseconds, rarely enough that time.monotonic costs nothing.
STOP_CHECK_NODES = 256
#: Extra plies a noisy line may run past the nominal depth. Bashni capture
#: exchanges rarely go on longer; the cap keeps a pathological chain finite.
QUIESCENCE_PLIES = 8
#: The table is dropped when it grows past this many entries (roughly 300 MB of
#: Python objects); one search at the levels we play stays far below it.
TT_LIMIT = 2_000_000

#: Aspiration windows start at this depth (shallower ones are too quick to gain)
#: and fall back to the full window once widened past ASPIRATION_LIMIT units.
ASPIRATION_FROM = 4
ASPIRATION_LIMIT = 2_000

#: Late move reductions (master only): from this move in the order on, at this
#: remaining depth or more, quiet moves (order key 0) are searched a ply shallower first.
LMR_FROM_MOVE = 3
LMR_MIN_DEPTH = 3

EXACT, LOWER, UPPER = 0, 1, 2

# Ordering bands: the evaluation's key dominates, killers beat any history score.
_KEY_SHIFT = 24
_KILLER = 1 << 22
_HISTORY_CAP = _KILLER - 1


@runtime_checkable
class Evaluation(Protocol):
    """What the search needs to score positions.

    ``evaluate(state)`` scores a position that is not finished, from the side
    to move's point of view, in units far below ``WIN - MAX_PLY``. An
    evaluation may also define, and the search uses them when present:

    * ``order_key(state, move) -> int``: a cheap guess of how good ``move``
      is, higher first (captures, removals, immediate wins); keep it small
      (under 64) and non-negative;
    * ``noisy(state) -> bool``: the position must be searched on before it
      can be scored (every legal move is then searched, with no stand-pat,
      so only use it where the moves are forced, like Bashni's captures);
    * ``tt_key(state) -> Hashable``: a key for the transposition table that
      is faster to hash than the state and tells apart every two states
      whose game values may differ;
    * ``revisit(state) -> int | None``: for a game without a repetition
      rule, the score of a position the game has already been in (None for
      a new one), so a side that wants progress can refuse to go round in
      circles; asked at every node below the root.
    """

    def evaluate(self, state: Any) -> int: ...


@dataclass(frozen=True, slots=True)
class Progress:
    """The result of one completed iteration."""

    depth: int
    move: Any
    score: int
    nodes: int
    pv: tuple[Any, ...]


class SearchStopped(Exception):
    """Raised inside the search when the deadline passes or the stop flag is set."""


def is_forced_result(score: int) -> bool:
    """Whether ``score`` says the game is won or lost by force."""
    return abs(score) >= WIN - MAX_PLY


def outcome_score(game: Game, state: Any, outcome: Outcome, ply: int) -> int:  # type: ignore[type-arg]
    """A finished position's score for the side to move, ``ply`` plies from the root."""
    if outcome.winner is None:
        return 0
    if outcome.winner == game.to_move(state):
        return WIN - ply
    return -(WIN - ply)


def _to_table(score: int, ply: int) -> int:
    # Forced results are stored relative to the node, so a hit at another ply
    # still counts the plies from the root correctly.
    if score >= WIN - MAX_PLY:
        return score + ply
    if score <= -(WIN - MAX_PLY):
        return score - ply
    return score


def _from_table(score: int, ply: int) -> int:
    if score >= WIN - MAX_PLY:
        return score - ply
    if score <= -(WIN - MAX_PLY):
        return score + ply
    return score


class Searcher:
    """One search's tables and counters; use ``search`` unless you need the object."""

    def __init__(
        self,
        game: Game,  # type: ignore[type-arg]
        evaluation: Evaluation,
        *,
        history: Sequence[Any] = (),
        deadline: float | None = None,
        stop: Callable[[], bool] | None = None,
        max_nodes: int | None = None,
        quiescence_plies: int = QUIESCENCE_PLIES,
        reductions: bool = False,
        table: dict[Hashable, tuple[int, int, int, Any]] | None = None,
    ) -> None:
        self.game = game
        self.evaluation = evaluation
        self.deadline = deadline
        self.stop = stop
        self.max_nodes = max_nodes
        self.quiescence_plies = quiescence_plies
        self.reductions = reductions
        self.nodes = 0
        self.table: dict[Hashable, tuple[int, int, int, Any]] = {} if table is None else table
        self.killers: list[list[Any]] = [[None, None] for _ in range(MAX_PLY + quiescence_plies + 2)]
        self.history: dict[Any, int] = {}
        self._order_key: Callable[[Any, Any], int] | None = getattr(evaluation, "order_key", None)
        self._noisy: Callable[[Any], bool] | None = getattr(evaluation, "noisy", None)
        self._tt_key: Callable[[Any], Hashable] | None = getattr(evaluation, "tt_key", None)
        self._revisit: Callable[[Any], int | None] | None = getattr(evaluation, "revisit", None)
        # Repetition is only tracked for games that have the rule.
        self._repetition_key: Callable[[Any], Hashable | None] | None = None
        self._earlier: dict[Hashable, int] = {}
        self._path: dict[Hashable, int] = {}
        if self._has_repetition_rule():
            self._repetition_key = game.repetition_key
            for state in history:
                key = game.repetition_key(state)
                if key is not None:
                    self._earlier[key] = self._earlier.get(key, 0) + 1

    def _has_repetition_rule(self) -> bool:
        # Games without the rule keep the base method, whose key is always None.
        return type(self.game).repetition_key is not Game.repetition_key

    # ------------------------------------------------------------- plumbing

    def _check_stop(self) -> None:
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise SearchStopped
        if self.stop is not None and self.stop():
            raise SearchStopped
        # Counted, not timed: the same budget stops at the same node on any machine.
        if self.max_nodes is not None and self.nodes >= self.max_nodes:
            raise SearchStopped

    def _key(self, state: Any) -> Hashable:
        return state if self._tt_key is None else self._tt_key(state)

    def _ordered(self, state: Any, moves: list[Any], first: Any, ply: int) -> list[Any]:
        """``moves`` best guess first: table move, evaluation key, killers, history."""
        order_key = self._order_key
        get = self.history.get
        if order_key is None:
            scores = [get(move, 0) for move in moves]
        else:
            scores = [get(move, 0) + (order_key(state, move) << _KEY_SHIFT) for move in moves]
        for killer in self.killers[ply]:
            if killer is not None and killer in moves:
                scores[moves.index(killer)] += _KILLER
        if first is not None and first in moves:
            scores[moves.index(first)] = 1 << 62
        # sorted(reverse=True) is stable too: equal moves keep their incoming
        # order, which is what makes a shuffled root list break ties at random.
        return [moves[i] for i in sorted(range(len(moves)), key=scores.__getitem__, reverse=True)]

    def _cutoff(self, move: Any, depth: int, ply: int) -> None:
        # Deeper cutoffs say more, hence the square; the cap keeps history
        # below the killers' band.
        killers = self.killers[ply]
        if killers[0] != move:
            killers[1] = killers[0]
            killers[0] = move
        bonus = max(depth, 1) ** 2
        self.history[move] = min(self.history.get(move, 0) + bonus, _HISTORY_CAP)

    # --------------------------------------------------------------- search

    def negamax(self, state: Any, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The score of ``state`` for its side to move, within the window (alpha, beta)."""
        self.nodes += 1
        if self.nodes % STOP_CHECK_NODES == 0:
            self._check_stop()
        game = self.game
        repetition_key = None
        if self._repetition_key is not None and ply > 0:
            repetition_key = self._repetition_key(state)
            # Met before on this path: either side can repeat again, so a draw.
            # Met twice before the root: this is the third time.
            if self._path.get(repetition_key, 0) or self._earlier.get(repetition_key, 0) >= 2:
                return 0

        if self._revisit is not None and ply > 0:
            again = self._revisit(state)
            if again is not None:
                return again

        key = self._key(state)
        entry = self.table.get(key)
        table_move = None
        if entry is not None:
            stored_depth, bound, stored, table_move = entry
            if stored_depth >= depth and ply > 0:
                score = _from_table(stored, ply)
                if (
                    bound == EXACT
                    or (bound == LOWER and score >= beta)
                    or (bound == UPPER and score <= alpha)
                ):
                    return score

        if depth <= 0:
            outcome = game.outcome(state)
            if outcome is not None:
                return outcome_score(game, state, outcome, ply)
            noisy = self._noisy
            if noisy is None or depth <= -self.quiescence_plies or not noisy(state):
                return self.evaluation.evaluate(state)
            moves = game.legal_moves(state)
        else:
            moves = game.legal_moves(state)
            if not moves:
                outcome = game.outcome(state)
                # legal_moves is empty exactly when the game is over; a missing
                # outcome would be an engine bug, scored as a loss for the mover.
                if outcome is None:
                    return -(WIN - ply)
                return outcome_score(game, state, outcome, ply)

        if repetition_key is not None:
            self._path[repetition_key] = self._path.get(repetition_key, 0) + 1
        try:
            best, best_move = self._moves(state, moves, depth, alpha, beta, ply, table_move)
        finally:
            if repetition_key is not None:
                self._path[repetition_key] -= 1

        bound = UPPER if best <= alpha else LOWER if best >= beta else EXACT
        if len(self.table) >= TT_LIMIT:
            self.table.clear()
        self.table[key] = (depth, bound, _to_table(best, ply), best_move)
        return best

    def _moves(
        self, state: Any, moves: list[Any], depth: int, alpha: int, beta: int, ply: int, table_move: Any
    ) -> tuple[int, Any]:
        apply = self.game.apply
        negamax = self.negamax
        best = -INFINITY
        best_move = None
        child_depth = depth - 1
        ordered = self._ordered(state, moves, table_move, ply) if len(moves) > 1 else moves
        reduce_from = LMR_FROM_MOVE if self.reductions and depth >= LMR_MIN_DEPTH else len(ordered)
        order_key = self._order_key
        for index, move in enumerate(ordered):
            child = apply(state, move)
            if index == 0:
                score = -negamax(child, child_depth, -beta, -alpha, ply + 1)
            else:
                if index >= reduce_from and (order_key is None or order_key(state, move) == 0):
                    # Late move reduction: a quiet move this far down the order is
                    # looked at a ply shallower, and again at full depth if it beats alpha.
                    score = -negamax(child, child_depth - 1, -alpha - 1, -alpha, ply + 1)
                    if score > alpha:
                        score = -negamax(child, child_depth, -alpha - 1, -alpha, ply + 1)
                else:
                    score = -negamax(child, child_depth, -alpha - 1, -alpha, ply + 1)
                if alpha < score < beta:
                    score = -negamax(child, child_depth, -beta, -alpha, ply + 1)
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        self._cutoff(move, depth, ply)
                        break
        return best, best_move

    def root(
        self, state: Any, depth: int, moves: list[Any], window: tuple[int, int] | None = None
    ) -> tuple[int, Any]:
        """Search every root move to ``depth``; ``moves`` is reordered best first.

        With a ``window`` (aspiration), a score at or outside it is only a bound:
        the caller must search again wider; nothing is stored or reordered then.
        """
        self.nodes += 1
        apply = self.game.apply
        alpha, beta = (-INFINITY, INFINITY) if window is None else window
        floor = alpha
        best_move = moves[0]
        scores: dict[int, int] = {}
        key = None
        if self._repetition_key is not None:
            key = self._repetition_key(state)
            self._path[key] = self._path.get(key, 0) + 1
        try:
            for index, move in enumerate(moves):
                child = apply(state, move)
                if index == 0:
                    score = -self.negamax(child, depth - 1, -beta, -alpha, 1)
                else:
                    score = -self.negamax(child, depth - 1, -alpha - 1, -alpha, 1)
                    if score > alpha:
                        score = -self.negamax(child, depth - 1, -beta, -alpha, 1)
                scores[index] = score
                if score > alpha:
                    alpha = score
                    best_move = move
                    if alpha >= beta:  # only with a window: a fail high
                        break
        finally:
            if key is not None:
                self._path[key] -= 1
        if window is not None and not floor < alpha < beta:
            if alpha >= beta:  # the move that failed high is tried first next time
                moves.remove(best_move)
                moves.insert(0, best_move)
            return alpha, None
        # The next iteration starts with this one's best move; the others keep
        # their order, which is the (possibly shuffled) order they came in.
        moves.remove(best_move)
        moves.insert(0, best_move)
        self.table[self._key(state)] = (depth, EXACT, alpha, best_move)
        return alpha, best_move

    def principal_variation(self, state: Any, first: Any, limit: int) -> tuple[Any, ...]:
        """The expected line from ``state``, read back from the table."""
        line = [first]
        seen = {self._key(state)}
        state = self.game.apply(state, first)
        while len(line) < limit:
            key = self._key(state)
            entry = self.table.get(key)
            if entry is None or entry[3] is None or key in seen:
                break
            seen.add(key)
            move = entry[3]
            if move not in self.game.legal_moves(state):
                break
            line.append(move)
            state = self.game.apply(state, move)
        return tuple(line)


def search(
    game: Game,  # type: ignore[type-arg]
    state: Any,
    evaluation: Evaluation,
    max_depth: int,
    *,
    history: Sequence[Any] = (),
    deadline: float | None = None,
    stop: Callable[[], bool] | None = None,
    rng: random.Random | None = None,
    max_nodes: int | None = None,
    aspiration: int | None = None,
    quiescence_plies: int = QUIESCENCE_PLIES,
    reductions: bool = False,
    table: dict[Hashable, tuple[int, int, int, Any]] | None = None,
) -> Iterator[Progress]:
    """Search ``state`` to depths 1..``max_depth``, yielding each finished depth.

    ``history`` holds the game's earlier positions (start first, ``state``
    excluded) for games with a repetition rule. ``deadline`` is a
    ``time.monotonic()`` value. ``rng``, when given, shuffles the root moves
    once, so equally scored moves are chosen at random but reproducibly.
    Nothing is yielded for a finished position. The search stops early once
    it has proved a win or a loss (a deeper search cannot change it).

    ``max_nodes`` stops the search (dropping the unfinished depth) once it has
    visited that many nodes, counted to the nearest ``STOP_CHECK_NODES``: a
    budget that is the same on every machine. ``aspiration`` (from depth
    ``ASPIRATION_FROM`` on) searches each depth first within that many units
    either side of the previous depth's score, and again with the full window
    only when the score falls outside. ``quiescence_plies`` caps the noisy
    extension. ``reductions`` turns on late move reductions. ``table`` is a
    transposition table to start from and fill (one kept from an earlier
    search of the same game and evaluation; never for a game whose scores
    depend on the path, like a repetition rule's). The defaults
    are what the depth-bound levels have always used.
    """
    moves = game.legal_moves(state)
    if not moves:
        return
    if rng is not None:
        rng.shuffle(moves)
    searcher = Searcher(
        game,
        evaluation,
        history=history,
        deadline=deadline,
        stop=stop,
        max_nodes=max_nodes,
        quiescence_plies=quiescence_plies,
        reductions=reductions,
        table=table,
    )
    # Order the root once with the same cheap knowledge the inner nodes use.
    moves = searcher._ordered(state, moves, None, 0)
    score = 0
    for depth in range(1, max_depth + 1):
        try:
            if aspiration is None or depth < ASPIRATION_FROM or is_forced_result(score):
                score, move = searcher.root(state, depth, moves)
            else:
                score, move = _aspirated(searcher, state, depth, moves, score, aspiration)
        except SearchStopped:
            return
        pv = searcher.principal_variation(state, move, depth)
        yield Progress(depth, move, score, searcher.nodes, pv)
        if is_forced_result(score):
            return


def _aspirated(
    searcher: Searcher, state: Any, depth: int, moves: list[Any], guess: int, width: int
) -> tuple[int, Any]:
    """``searcher.root`` within ``guess`` ± ``width``, widened on the failing side until it holds."""
    low, high = guess - width, guess + width
    while True:
        score, move = searcher.root(state, depth, moves, (low, high))
        if move is not None:
            return score, move
        # Widen the side that failed, four times as far each time, then give up on windows.
        width *= 4
        if width > ASPIRATION_LIMIT:
            return searcher.root(state, depth, moves)
        if score <= low:
            low = score - width
        else:
            high = score + width


def best_move(
    game: Game,  # type: ignore[type-arg]
    state: Any,
    evaluation: Evaluation,
    depth: int,
    **options: Any,
) -> Progress | None:
    """The last ``Progress`` of ``search`` (``None`` for a finished position)."""
    last = None
    for last in search(game, state, evaluation, depth, **options):  # noqa: B007 - the last one is wanted
        pass
    return last
