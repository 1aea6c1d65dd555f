"""Opponent levels, and the one call the web app and the CLI make to get a move.

A level is a search depth plus a rate of deliberate mistakes: with that
probability the opponent plays a uniformly random legal move instead of its
searched one. Everything random comes from one ``random.Random``, so the same
seed gives the same moves.

Bashni's levels are the solo ladder of RULES.md: opponent *n* searches
min(n, 7) plies and blunders 30/15/7/3/1 % of the time for n = 1..5, never from
6 on (from 8 on the player is handicapped instead; that is the caller's
``initial(handicap=…)``, not the opponent's business). The other games have
four levels, easy, medium, hard and strongest, measured against each other in
``bench/ai_strength.py`` (docs/benchmarks.md has the tables).

Every game also has a *master* level (Bashni 19, beyond the ladder's 18; the
others 5) that searches by time rather than depth: iterative deepening until
its budget (``MASTER_SECONDS``, less when the caller says so) runs out,
playing the last finished depth, with aspiration windows and, in Bashni, a
longer capture quiescence (``games.ai.search``). Its move depends on the
machine's speed; a node budget (``nodes``) makes it reproducible for tests.

``choose_move`` takes and returns only strings and numbers, so it can run in a
worker process.
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import games
from games.ai.search import Evaluation, Progress, search
from games.base import Game, IllegalMove


@dataclass(frozen=True, slots=True)
class Level:
    """How an opponent plays: its search depth in plies and its blunder rate (0..1)."""

    depth: int
    random_rate: float
    name: str = ""
    #: Seconds of thought a move: 0 for the depth-bound levels, the budget for a
    #: time-bound one (then ``depth`` is only a ceiling).
    seconds: float = 0.0


#: Opponent n's blunder rate for n = 1..5 (RULES.md, "Bashni solo streak").
BASHNI_RANDOM_RATES = (0.30, 0.15, 0.07, 0.03, 0.01)
#: Opponent n searches min(n, BASHNI_MAX_DEPTH) plies.
BASHNI_MAX_DEPTH = 7


def bashni_level(n: int) -> Level:
    """Opponent ``n`` (1, 2, …) of the Bashni ladder."""
    if n < 1:
        raise ValueError(f"Bashni opponents are numbered from 1, got {n}")
    rate = BASHNI_RANDOM_RATES[n - 1] if n <= len(BASHNI_RANDOM_RATES) else 0.0
    return Level(min(n, BASHNI_MAX_DEPTH), rate, f"opponent {n}")


#: Levels 1..4 of the other games: easy, medium, hard, strongest. The depths
#: and rates are the ones bench/ai_strength.py measured to be in order (each
#: level beats the one below it) with the strongest replying in well under a
#: second; docs/benchmarks.md has the figures.
LEVELS: dict[str, tuple[Level, ...]] = {
    "morris": (
        Level(1, 0.25, "easy"),
        Level(2, 0.10, "medium"),
        Level(4, 0.0, "hard"),
        Level(6, 0.0, "strongest"),
    ),
    "bobail": (
        Level(1, 0.25, "easy"),
        Level(2, 0.10, "medium"),
        Level(3, 0.0, "hard"),
        Level(5, 0.0, "strongest"),
    ),
    # With the same-line rule (the default for new matches) a position has
    # about ten moves instead of a hundred, so the strongest level searches
    # three plies (and on through removal cascades in small universes); the
    # levels differ by depth and by blunders.
    "bilsang": (
        Level(1, 0.30, "easy"),
        Level(2, 0.10, "medium"),
        Level(2, 0.0, "hard"),
        Level(3, 0.0, "strongest"),
    ),
}


#: The master level's think time a move, by default (the web app passes less on a short clock).
MASTER_SECONDS = 2.0
#: The search looks at the clock every few hundred nodes and then unwinds, so it
#: stops this much before the budget ends to answer within it (without it, the
#: median master move took 2.02 s of a 2 s budget in bench/ai_master.py's Morris
#: match of 2026-12-06).
MASTER_STOP_MARGIN = 0.03
#: Its depth ceiling: never reached in practice, the clock stops it first.
MASTER_DEPTH = 64
#: Its number: Bashni's ladder has 18 opponents, the other games four levels.
MASTER_LEVEL = {"bashni": 19, "morris": 5, "bobail": 5, "bilsang": 5}
MASTER = Level(MASTER_DEPTH, 0.0, "master", MASTER_SECONDS)
#: The master's search options per game (games.ai.search.search): the aspiration
#: window (a third of a man, a piece, a buoy; Bobail's units are smaller) and, for
#: Bashni, how far capture exchanges are followed past the nominal depth.
MASTER_SEARCH: dict[str, dict[str, Any]] = {
    "bashni": {"aspiration": 35, "quiescence_plies": 16, "reductions": True},
    "morris": {"aspiration": 35, "reductions": True},
    "bobail": {"aspiration": 25, "reductions": True},
    "bilsang": {"aspiration": 35, "reductions": True},
}


#: Games whose master searches with a module of its own rather than games.ai.search.
OWN_SEARCH = {"bobail": "games.ai.bobail_search"}
MASTER_SEARCH_OPTIONS = ("stop", "max_nodes", "aspiration")


def own_search_options(options: dict[str, Any]) -> dict[str, Any]:
    """Those of the master's search ``options`` that a module of ``OWN_SEARCH`` takes."""
    return {k: v for k, v in options.items() if k in MASTER_SEARCH_OPTIONS}


#: On a real-time clock the master spends about this share of what it has left a
#: move, plus half its increment, never more than MASTER_SECONDS nor less than
#: MASTER_MIN_SECONDS: a 1+0 game gets 1.5 s at the start, 0.25 s with 10 s left.
MASTER_CLOCK_SHARE = 1 / 40
MASTER_MIN_SECONDS = 0.2


def master_seconds(left_seconds: float | None, increment_seconds: float = 0.0) -> float:
    """The master's think time a move with ``left_seconds`` on its clock (None: no clock)."""
    if left_seconds is None:
        return MASTER_SECONDS
    budget = left_seconds * MASTER_CLOCK_SHARE + increment_seconds / 2
    return max(MASTER_MIN_SECONDS, min(MASTER_SECONDS, budget))


#: Games whose master keeps its transposition table and evaluation (with its
#: cache) from one search to the next in a process: the next move's tree is
#: mostly searched already, which is worth about a ply. Only where a position's
#: score does not depend on how it was reached or who searches: not Morris and
#: Bobail (repetition rules), not Bilsang (its evaluation favours the searching side).
KEEPS_TABLE = frozenset({"bashni"})
#: A kept table is started afresh past this many entries (about 60 MB).
KEPT_ENTRIES = 400_000
_kept: dict[str, tuple[Evaluation, dict[Any, Any]]] = {}


def _kept_search(game_name: str) -> tuple[Evaluation, dict[Any, Any]]:
    kept = _kept.get(game_name)
    if kept is None or len(kept[1]) > KEPT_ENTRIES:
        kept = _kept[game_name] = (evaluation_for(game_name), {})
    return kept


def strongest_level(game_name: str) -> Level:
    """The strongest depth-bound level: Bashni's opponent 7 (= 18), the others' level 4."""
    return bashni_level(BASHNI_MAX_DEPTH) if game_name == "bashni" else LEVELS[game_name][-1]


def is_master(game_name: str, n: int) -> bool:
    """Whether level ``n`` of ``game_name`` is its master level."""
    return MASTER_LEVEL.get(game_name) == n


#: Bilsang without the same-line rule ("free pairs") has a hundred moves a
#: position rather than ten: no level searches deeper than this there.
BILSANG_FREE_PAIRS_DEPTH = 2


def search_depth(game: Game, state: Any, level: Level) -> int:  # type: ignore[type-arg]
    """How deep ``level`` searches ``state``: its depth, less where the rules make moves many."""
    if game.name == "bilsang" and not state.line and not level.seconds:
        return min(level.depth, BILSANG_FREE_PAIRS_DEPTH)
    return level.depth


def level_for(game_name: str, n: int) -> Level:
    """Level ``n`` of ``game_name``: any n >= 1 for Bashni (19 the master), 1..5 for the others."""
    if is_master(game_name, n):
        return MASTER
    if game_name == "bashni":
        return bashni_level(n)
    table = LEVELS.get(game_name)
    if table is None:
        raise games.UnknownGame(f"no opponent levels for {game_name!r}")
    if not 1 <= n <= len(table):
        raise ValueError(f"{game_name} levels are 1..{len(table) + 1}, got {n}")
    return table[n - 1]


def level_count(game_name: str) -> int | None:
    """How many levels a game has, the master's included; ``None`` for Bashni's open-ended ladder."""
    return None if game_name == "bashni" else len(LEVELS[game_name]) + 1


_EVALUATIONS: dict[str, tuple[str, str]] = {
    "bashni": ("games.ai.eval_bashni", "BashniEvaluation"),
    "morris": ("games.ai.eval_morris", "MorrisEvaluation"),
    "bobail": ("games.ai.eval_bobail", "BobailEvaluation"),
    "bilsang": ("games.ai.eval_bilsang", "BilsangEvaluation"),
}


def evaluation_for(game_name: str) -> Evaluation:
    """A fresh evaluation for ``game_name`` (evaluations may cache, so one per search)."""
    spec = _EVALUATIONS.get(game_name)
    if spec is None:
        raise games.UnknownGame(f"no evaluation for {game_name!r}")
    module, name = spec
    factory: Any = getattr(importlib.import_module(module), name)
    return factory()


@dataclass(frozen=True, slots=True)
class Choice:
    """A chosen move and how it was found.

    ``random`` is True when the level's blunder rate picked a random move; then
    ``depth``, ``score`` and ``nodes`` are 0. ``score`` is from the mover's
    view, in the evaluation's units (``games.ai.search.WIN`` for a forced win).
    """

    move: Any
    random: bool
    depth: int
    score: int
    nodes: int
    ms: int


def choose(
    game: Game,  # type: ignore[type-arg]
    state: Any,
    level: Level,
    rng: random.Random,
    *,
    history: Sequence[Any] = (),
    time_limit: float | None = None,
    seconds: float | None = None,
    nodes: int | None = None,
) -> Choice:
    """The move ``level`` plays in ``state``; raises ``IllegalMove`` if the game is over.

    ``history`` holds the game's earlier positions (start first, ``state``
    excluded), which the search needs for games with a repetition rule.
    ``time_limit`` (seconds) is a safety net: the search then plays the best
    move of the last depth it finished, which makes the move depend on the
    machine's speed.

    A time-bound level (the master) thinks for ``seconds`` (default: its own
    budget), or, given ``nodes``, until it has searched that many nodes, which
    plays the same move on any machine (tests, benchmarks that must repeat).
    """
    began, thinking_since = time.perf_counter(), time.monotonic()
    moves = game.legal_moves(state)
    if not moves:
        raise IllegalMove("the game is over; there is no move to choose", key="game-over")

    def done(move: Any, is_random: bool, progress: Progress | None = None) -> Choice:
        ms = int((time.perf_counter() - began) * 1000)
        if progress is None:
            return Choice(move, is_random, 0, 0, 0, ms)
        return Choice(progress.move, is_random, progress.depth, progress.score, progress.nodes, ms)

    if level.random_rate > 0 and rng.random() < level.random_rate:
        return done(rng.choice(moves), True)
    if len(moves) == 1:
        return done(moves[0], False)
    return done(
        None, False, searched(game, state, level, rng, history, time_limit, seconds, nodes, thinking_since)
    )


def searched(
    game: Game,  # type: ignore[type-arg]
    state: Any,
    level: Level,
    rng: random.Random | None = None,
    history: Sequence[Any] = (),
    time_limit: float | None = None,
    seconds: float | None = None,
    nodes: int | None = None,
    thinking_since: float | None = None,
) -> Progress:
    """The last finished depth of ``level``'s search of ``state`` (which has moves).

    ``choose``'s search, without the blunders; ``games.ai.analysis`` uses it too.
    A time-bound level's budget counts from ``thinking_since`` (``time.monotonic``;
    default: now), so the move generation and preparation before the search count too.
    """
    deadline = None if time_limit is None else time.monotonic() + time_limit
    options: dict[str, Any] = {}
    finished = [0]  # the depth of the last finished iteration
    if level.seconds:
        options = dict(MASTER_SEARCH.get(game.name, {}))
        if nodes is not None:
            options["max_nodes"] = nodes
        else:
            # The clock only stops depths beyond the strongest depth-bound level's:
            # the master never plays from a shallower search than that level would.
            floor = search_depth(game, state, strongest_level(game.name))
            budget = level.seconds if seconds is None else seconds
            start = time.monotonic() if thinking_since is None else thinking_since
            budget_ends = start + budget - MASTER_STOP_MARGIN
            options["stop"] = lambda: finished[0] >= floor and time.monotonic() >= budget_ends
    if level.seconds and game.name in OWN_SEARCH:
        # Bobail's master has a search of its own (games.ai.bobail_search): the same
        # scores and Progress, over bit masks, with the turn's two slides in two loops.
        module = importlib.import_module(OWN_SEARCH[game.name])
        own = own_search_options(options)
        last = None
        for last in module.search(
            state, search_depth(game, state, level), history=history, deadline=deadline, rng=rng, **own
        ):
            finished[0] = last.depth
        if last is None:  # stopped before depth 1 finished: depth 1 is quick
            for last in module.search(state, 1, history=history):  # noqa: B007
                pass
        assert last is not None
        return last
    if level.seconds and nodes is None and game.name in KEEPS_TABLE:
        # A node budget must give the same move whatever was searched before: fresh tables.
        evaluation, options["table"] = _kept_search(game.name)
    else:
        evaluation = evaluation_for(game.name)
    prepare = getattr(evaluation, "prepare", None)
    if prepare is not None:
        prepare(state, history)
    last = None
    for last in search(  # the last completed depth is the answer
        game,
        state,
        evaluation,
        search_depth(game, state, level),
        history=history,
        deadline=deadline,
        rng=rng,
        **options,
    ):
        finished[0] = last.depth
    if last is None:
        # Not even depth 1 finished in time: finish it regardless, it is quick.
        for last in search(game, state, evaluation_for(game.name), 1, history=history):  # noqa: B007
            pass
    assert last is not None
    return last


def choose_move(
    game_name: str,
    position: str,
    level: int,
    seed: int,
    history: Sequence[str] = (),
    time_limit: float | None = None,
    seconds: float | None = None,
    nodes: int | None = None,
) -> tuple[str, dict[str, Any]]:
    """The move (in notation) opponent ``level`` plays in ``position``, and how it was found.

    Pure and picklable for a process pool: the same arguments give the same
    move (unless ``time_limit`` cuts a search short). ``history`` is the
    game's earlier position strings, start first, ``position`` excluded; pass
    it for Morris and Bobail, whose threefold-repetition draw the search
    avoids or seeks; other games ignore it. ``seconds`` and ``nodes`` are the
    master level's budget (see ``choose``); other levels ignore them. The dict holds ``random``,
    ``depth``, ``score``, ``nodes`` and ``ms``. Raises ``games.GameError``
    (``UnknownGame``, ``BadPosition``, ``IllegalMove`` for a finished
    position) and ``ValueError`` for a level the game does not have.
    """
    game = games.get(game_name)
    state = game.parse_position(position)
    earlier = [game.parse_position(text) for text in history]
    choice = choose(
        game,
        state,
        level_for(game_name, level),
        random.Random(seed),
        history=earlier,
        time_limit=time_limit,
        seconds=seconds,
        nodes=nodes,
    )
    info = {
        "random": choice.random,
        "depth": choice.depth,
        "score": choice.score,
        "nodes": choice.nodes,
        "ms": choice.ms,
    }
    return game.format_move(choice.move), info
